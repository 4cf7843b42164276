// Starts the archive page at /archive: its part of the shared page shown, the token asked for when the API wants one.
import { ApiClient } from './api-client.js';
import { ArchivePage } from './archive-page.js';

function element<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el as T;
}

export function startArchivePage(): void {
  document.title = 'Vigil — archive';
  document.body.dataset['page'] = 'archive';
  element('grid').hidden = true;
  const root = element('archive');
  root.hidden = false;
  const message = element('message');
  const form = element<HTMLFormElement>('token-form');
  const input = element<HTMLInputElement>('token');
  const client = new ApiClient();
  const page = new ArchivePage(root, client, (text) => {
    message.textContent = text;
    message.hidden = false;
    form.hidden = false;
    input.focus();
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    client.setToken(input.value.trim());
    input.value = '';
    form.hidden = true;
    message.hidden = true;
    void page.start();
  });
  void page.start();
}
