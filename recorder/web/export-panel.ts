// Export or time-lapse of the selected range: the job submitted to the camera's node, its progress, the download link.
import type { ArchiveApi } from './archive-api.js';
import { button } from './dom.js';
import { clockTime, spokenDuration } from './local-time.js';

const POLL_MS = 1000;
const MAX_WINDOW_MS = 4 * 3600_000;
const SPEEDS = [10, 30, 60, 120];
/** Tickets last 5 minutes; the link gets a fresh one when it is older than this. */
const TICKET_RENEW_MS = 4 * 60_000;

export interface ExportTarget {
  cameraId: string;
  /** Base URL of the node that records the camera ('' for this one): jobs read that node's own files. */
  base: string;
}

export class ExportPanel {
  readonly element: HTMLElement;
  readonly #api: ArchiveApi;
  readonly #range: HTMLElement;
  readonly #speed: HTMLSelectElement;
  readonly #buttons: HTMLButtonElement[];
  readonly #status: HTMLElement;
  readonly #progress: HTMLProgressElement;
  readonly #link: HTMLAnchorElement;
  #target: ExportTarget | undefined;
  /** The download link's job and when its ticket was minted (a ticket lasts 5 minutes: an older one is renewed on click). */
  #download: { base: string; jobId: string; path: string; mintedAt: number } | undefined;
  #selection: { fromMs: number; toMs: number } | undefined;
  #polling = 0;

  constructor(api: ArchiveApi) {
    this.#api = api;
    this.element = document.createElement('section');
    this.element.className = 'export-panel';
    this.#range = document.createElement('span');
    this.#speed = document.createElement('select');
    this.#speed.id = 'timelapse-speed';
    this.#speed.setAttribute('aria-label', 'time-lapse speed');
    for (const s of SPEEDS) this.#speed.append(new Option(`×${s}`, String(s), s === 60, s === 60));
    const exportButton = button('Export clip', { id: 'export-button', onClick: () => void this.#submit('export') });
    const timelapseButton = button('Time-lapse', { id: 'timelapse-button', onClick: () => void this.#submit('timelapse') });
    this.#buttons = [exportButton, timelapseButton];
    this.#progress = document.createElement('progress');
    this.#progress.max = 1;
    this.#progress.hidden = true;
    this.#status = document.createElement('span');
    this.#status.className = 'export-status';
    this.#link = document.createElement('a');
    this.#link.id = 'export-download';
    this.#link.hidden = true;
    this.#link.addEventListener('click', (ev) => {
      const d = this.#download;
      if (d === undefined || Date.now() - d.mintedAt < TICKET_RENEW_MS) return;
      ev.preventDefault();
      void this.#offerDownload(this.#polling, d.base, d.jobId, d.path).then(() => this.#link.click());
    });
    this.element.append(this.#range, exportButton, timelapseButton, this.#speed, this.#progress, this.#status, this.#link);
    this.show(undefined, undefined);
  }

  show(target: ExportTarget | undefined, selection: { fromMs: number; toMs: number } | undefined): void {
    this.#target = target;
    this.#selection = selection;
    const usable = target !== undefined && selection !== undefined && selection.toMs - selection.fromMs <= MAX_WINDOW_MS;
    for (const b of this.#buttons) b.disabled = !usable;
    this.#range.textContent =
      selection === undefined
        ? 'Select a range (drag in the band above the timeline, or Shift-drag) to export it.'
        : `Selected ${clockTime(selection.fromMs)} – ${clockTime(selection.toMs)} (${spokenDuration(selection.toMs - selection.fromMs)})${usable ? '' : ': at most 4 hours can be exported at once'}`;
  }

  async #submit(kind: 'export' | 'timelapse'): Promise<void> {
    const target = this.#target;
    const sel = this.#selection;
    if (target === undefined || sel === undefined) return;
    const poll = ++this.#polling;
    this.#link.hidden = true;
    this.#progress.hidden = false;
    this.#progress.value = 0;
    this.#say(`${kind === 'export' ? 'Export' : 'Time-lapse'} submitted…`);
    const speed = kind === 'timelapse' ? Number(this.#speed.value) : undefined;
    const submitted = await this.#api.submitJob(target.base, target.cameraId, kind, sel.fromMs, sel.toMs, speed);
    if (!submitted.ok) {
      this.#progress.hidden = true;
      this.#say(submitted.status === 403 ? 'Exporting needs a token with the operator role.' : `The ${kind} was refused: ${submitted.message}`);
      return;
    }
    const { job_id: jobId, status_url: statusUrl, download_url: downloadUrl } = submitted.value;
    while (poll === this.#polling) {
      const job = await this.#api.job(target.base, statusUrl);
      if (poll !== this.#polling) return;
      if (!job.ok) {
        this.#say(`The job's status cannot be read: ${job.message}`);
      } else if (job.value.state === 'done') {
        this.#progress.value = 1;
        this.#say(`Done (${Math.round((job.value.size_bytes ?? 0) / 1024)} KiB).`);
        await this.#offerDownload(poll, target.base, jobId, downloadUrl);
        return;
      } else if (job.value.state === 'failed') {
        this.#progress.hidden = true;
        this.#say(`The ${kind} failed: ${job.value.message ?? job.value.reason ?? 'no reason given'}`);
        return;
      } else {
        this.#progress.value = job.value.progress ?? 0;
        this.#say(job.value.state === 'pending' ? 'Waiting for a free worker…' : `Working… ${Math.round((job.value.progress ?? 0) * 100)} %`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  #say(text: string): void {
    this.#status.textContent = text;
  }

  /** Shows the download link with a ticket for the job (a link cannot carry the token's header). */
  async #offerDownload(poll: number, base: string, jobId: string, path: string): Promise<void> {
    let href: string;
    try {
      href = await this.#api.downloadUrl(base, jobId, path);
    } catch (err) {
      this.#say(`The result cannot be offered for download: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (poll !== this.#polling) return;
    this.#download = { base, jobId, path, mintedAt: Date.now() };
    this.#link.href = href;
    this.#link.textContent = 'Download';
    this.#link.hidden = false;
  }
}
