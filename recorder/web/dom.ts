// Small DOM builders the archive page's parts share.

/** A `<button type="button">` with its text, and an id, a tooltip and a click handler when given. */
export function button(text: string, opts: { id?: string; title?: string; onClick?: () => void } = {}): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  if (opts.id !== undefined) b.id = opts.id;
  b.textContent = text;
  if (opts.title !== undefined) b.title = opts.title;
  if (opts.onClick !== undefined) b.addEventListener('click', opts.onClick);
  return b;
}
