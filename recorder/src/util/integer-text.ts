// Reads a query parameter that must be a whole number (epoch seconds, offsets, speeds).

/** The integer a text spells (surrounding spaces allowed), or undefined for anything else. */
export function integerFromText(text: string): number | undefined {
  const t = text.trim();
  return /^-?\d{1,15}$/.test(t) ? Number(t) : undefined;
}
