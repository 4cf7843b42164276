// The archive page: a camera and a day, its timeline, playback from any moment, export; the URL keeps camera, day, moment.
import type { ApiClient } from './api-client.js';
import { ArchiveApi } from './archive-api.js';
import { ArchivePlayer, type ArchivePlayerStats } from './archive-player.js';
import { Calendar } from './calendar.js';
import { ExportPanel } from './export-panel.js';
import type { CameraInfo } from './live-tile.js';
import { clockTime, dayBounds, daysOnTheirOwnOffsets, isDay, localDay, offsetMinutesOn, offsetsOfYear } from './local-time.js';
import { recordedSpans, type RecordedSpan } from './recorded-spans.js';
import { Timeline } from './timeline.js';
import { buildArchiveView, type ArchiveView } from './archive-view.js';

/** Today's listing is read again this often: the recording grows at the timeline's right end. */
const REFRESH_MS = 5000;
const POSITION_MS = 250;
const URL_EVERY_MS = 2000;
const STEP_MS = 10_000;

declare global {
  interface Window {
    /** Diagnostics for operators, tests and the benchmark. */
    vigilArchive?: { stats(): ArchivePlayerStats & { positionMs: number | undefined; originMs: number; camera: string; day: string } };
  }
}

export class ArchivePage {
  readonly #client: ApiClient;
  readonly #api: ArchiveApi;
  readonly #view: ArchiveView;
  readonly #player: ArchivePlayer;
  readonly #timeline: Timeline;
  readonly #calendar: Calendar;
  readonly #exports: ExportPanel;
  readonly #askToken: (message: string) => void;
  #cameras: CameraInfo[] = [];
  #camera = '';
  #day = localDay(Date.now());
  #days: string[] = [];
  #loading = 0;
  /** The day's first listing fits the view to what is recorded (a camera added an hour ago shows that hour). */
  #fitted = false;
  #spans: RecordedSpan[] = [];
  #urlWrittenAt = 0;

  constructor(root: HTMLElement, client: ApiClient, askToken: (message: string) => void) {
    this.#client = client;
    this.#api = new ArchiveApi(client);
    this.#askToken = askToken;
    this.#timeline = new Timeline({
      onSeek: (ms) => this.#playAt(ms, true),
      onScrub: (ms) => (this.#view.clock.textContent = clockTime(ms)),
      onSelect: (range) => this.#exports.show(this.#exportTarget(), range),
    });
    this.#calendar = new Calendar((day) => void this.#openDay(day, undefined));
    this.#exports = new ExportPanel(this.#api);
    this.#view = buildArchiveView(root, { timeline: this.#timeline.element, calendar: this.#calendar.element, exports: this.#exports.element });
    this.#player = new ArchivePlayer(this.#view.video, {
      playUrl: (fromMs, toMs) => this.#api.playUrl(this.#base(), this.#camera, fromMs, toMs),
      headers: () => this.#api.headers(),
      onStatus: (text) => this.#say(text),
      onEnded: (ms) => this.#say(`End of the recording at ${clockTime(ms)}.${this.#isRecording() ? ' Press Live for the camera now.' : ''}`),
    });
    this.#wireControls();
    window.vigilArchive = { stats: () => ({ ...this.#player.stats, positionMs: this.#player.positionMs, originMs: this.#player.originMs, camera: this.#camera, day: this.#day }) };
  }

  async start(): Promise<void> {
    const result = await this.#client.cameras();
    if (result.kind === 'unauthorized') return this.#askToken(this.#client.token === null ? 'This recorder needs an access token.' : `The token was refused: ${result.message}`);
    if (result.kind === 'failed') return this.#say(result.message);
    this.#cameras = result.cameras;
    const params = new URLSearchParams(location.search);
    const asked = params.get('camera');
    // A camera no longer configured keeps its recordings: a link naming it still opens them.
    const archiveOnly = asked !== null && asked !== '' && !this.#cameras.some((c) => c.id === asked);
    if (this.#cameras.length === 0 && !archiveOnly) return this.#say('This node has no cameras.');
    this.#camera = asked !== null && asked !== '' && (archiveOnly || this.#cameras.some((c) => c.id === asked)) ? asked : (this.#cameras[0] as CameraInfo).id;
    const options = this.#cameras.map((c) => new Option(c.id, c.id, false, c.id === this.#camera));
    if (archiveOnly) options.unshift(new Option(`${this.#camera} (recordings only)`, this.#camera, false, true));
    this.#view.cameraSelect.replaceChildren(...options);
    const t = Date.parse(params.get('t') ?? '');
    const day = Number.isFinite(t) ? localDay(t) : isDay(params.get('day')) ? (params.get('day') as string) : localDay(Date.now());
    await this.#openDay(day, Number.isFinite(t) ? t : undefined);
    window.setInterval(() => this.#showPosition(), POSITION_MS);
    window.setInterval(() => {
      if (this.#day === localDay(Date.now())) void this.#loadListing();
    }, REFRESH_MS);
  }

  #wireControls(): void {
    const v = this.#view;
    v.cameraSelect.addEventListener('change', () => {
      this.#camera = v.cameraSelect.value;
      void this.#openDay(this.#day, undefined);
    });
    v.playButton.addEventListener('click', () => this.#togglePause());
    v.speedSelect.addEventListener('change', () => (this.#player.rate = Number(v.speedSelect.value)));
    v.liveButton.addEventListener('click', () => (location.href = '/'));
    v.zoomIn.addEventListener('click', () => this.#timeline.zoom(0.5));
    v.zoomOut.addEventListener('click', () => this.#timeline.zoom(2));
    v.fitDay.addEventListener('click', () => this.#timeline.fitDay());
    v.earlier.addEventListener('click', () => this.#timeline.pan(-0.5));
    v.later.addEventListener('click', () => this.#timeline.pan(0.5));
    document.addEventListener('keydown', (ev) => {
      const target = ev.target as HTMLElement | null;
      if (target !== null && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(target.tagName)) return;
      const at = this.#player.positionMs;
      if (ev.key === ' ') this.#togglePause();
      else if (ev.key === 'ArrowLeft' && at !== undefined) this.#playAt(at - STEP_MS, false);
      else if (ev.key === 'ArrowRight' && at !== undefined) this.#playAt(at + STEP_MS, false);
      else return;
      ev.preventDefault();
    });
  }

  async #openDay(day: string, at: number | undefined): Promise<void> {
    this.#day = day;
    const { startMs, endMs } = dayBounds(day);
    this.#timeline.setDay(startMs, endMs);
    this.#fitted = false;
    this.#exports.show(this.#exportTarget(), undefined);
    this.#player.reset(startMs);
    this.#say(at === undefined ? 'Click the timeline to play from that moment.' : '');
    this.#writeUrl(at);
    await this.#loadListing();
    if (at !== undefined) this.#playAt(at, true);
  }

  async #loadListing(): Promise<void> {
    const load = ++this.#loading;
    const { startMs, endMs } = dayBounds(this.#day);
    const result = await this.#api.listing(this.#base(), this.#camera, startMs, endMs, offsetMinutesOn(this.#day));
    if (load !== this.#loading) return;
    if (!result.ok) {
      if (result.status === 401 || result.status === 403) this.#askToken(`The token was refused: ${result.message}`);
      else this.#say(`The recordings cannot be listed: ${result.message}`);
      return;
    }
    this.#days = await this.#daysOnTheirOwnOffsets(result.value.days);
    if (load !== this.#loading) return;
    const spans = recordedSpans(result.value.archive, Date.now());
    this.#spans = spans;
    this.#timeline.setSpans(spans);
    const [first, last] = [spans[0], spans[spans.length - 1]];
    if (!this.#fitted && first !== undefined && last !== undefined) {
      this.#fitted = true;
      if (this.#player.positionMs === undefined) this.#timeline.show(first.startMs, last.endMs);
    }
    this.#calendar.show(this.#day, this.#days);
    this.#view.summary.textContent = result.value.archive.length === 0 ? 'Nothing recorded on this day.' : `${result.value.archive.length} segments on this day.`;
  }

  /**
   * The listing dates every day with the one offset it is asked with (the day shown's); in a time zone with daylight
   * saving the days of the other season are asked again with theirs (a one-second window: days do not depend on it).
   */
  async #daysOnTheirOwnOffsets(days: string[]): Promise<string[]> {
    const primary = offsetMinutesOn(this.#day);
    const answers = new Map<number, readonly string[]>([[primary, days]]);
    const { startMs } = dayBounds(this.#day);
    for (const offset of offsetsOfYear(this.#day).filter((o) => o !== primary)) {
      const other = await this.#api.listing(this.#base(), this.#camera, startMs, startMs + 1000, offset);
      if (other.ok) answers.set(offset, other.value.days);
    }
    return daysOnTheirOwnOffsets(answers, primary);
  }

  #playAt(ms: number, resume: boolean): void {
    const { startMs, endMs } = dayBounds(this.#day);
    if (ms < startMs || ms >= endMs) return void this.#openDay(localDay(ms), ms);
    this.#say('');
    this.#player.playAt(ms, resume);
    this.#timeline.setCursor(ms);
    this.#writeUrl(ms);
  }

  /** Pauses what plays, plays what is paused; with nothing shown yet, plays the first recording in view. */
  #togglePause(): void {
    if (this.#player.positionMs === undefined) {
      const view = this.#timeline.view;
      const span = this.#spans.find((s) => s.endMs > view.startMs) ?? this.#spans[0];
      if (span !== undefined) this.#playAt(Math.max(span.startMs, view.startMs), true);
      return;
    }
    this.#player.setPaused(!this.#view.video.paused);
  }

  #showPosition(): void {
    const at = this.#player.positionMs;
    if (at === undefined) return;
    this.#timeline.setCursor(at);
    this.#view.clock.textContent = clockTime(at);
    if (Date.now() - this.#urlWrittenAt > URL_EVERY_MS) this.#writeUrl(at);
  }

  /** camera, day and the moment shown (UTC, so a shared link means the same instant in any time zone). */
  #writeUrl(at: number | undefined): void {
    this.#urlWrittenAt = Date.now();
    const params = new URLSearchParams({ camera: this.#camera, day: this.#day });
    if (at !== undefined) params.set('t', new Date(Math.round(at)).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    history.replaceState(null, '', `/archive?${params.toString()}`);
  }

  /** The node that records the camera ('' for this one, and for a camera only in this node's archive). */
  #base(): string {
    return this.#cameras.find((c) => c.id === this.#camera)?.url ?? '';
  }

  #exportTarget(): { cameraId: string; base: string } | undefined {
    const camera = this.#cameras.find((c) => c.id === this.#camera);
    return camera === undefined ? undefined : { cameraId: camera.id, base: camera.url ?? '' };
  }

  #isRecording(): boolean {
    return this.#cameras.find((c) => c.id === this.#camera)?.state === 'recording';
  }

  #say(text: string): void {
    this.#view.status.textContent = text;
    this.#view.status.hidden = text === '';
  }
}
