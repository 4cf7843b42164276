// The timeline of one day: recorded spans and gaps, hour marks, the playhead, a selected range; zoom from 24 h to minutes.
import type { RecordedSpan } from './recorded-spans.js';
import { clockTime } from './local-time.js';

export interface TimelineHandlers {
  /** Click, or the end of a drag on the track: play from there. */
  onSeek(ms: number): void;
  /** While dragging: where the pointer is (the page shows the time). */
  onScrub(ms: number): void;
  /** A range dragged with Shift held, or in the band above the track; undefined clears it. */
  onSelect(range: { fromMs: number; toMs: number } | undefined): void;
}

const MIN_VIEW_MS = 5 * 60_000;
/** Tick spacings to choose from, smallest first: the first giving at most MAX_TICKS marks is used. */
const TICK_STEPS_MIN = [1, 2, 5, 10, 15, 30, 60, 120, 180];
const MAX_TICKS = 12;
/** A selection shorter than this is taken for a click in the band (clears the selection). */
const MIN_SELECTION_MS = 1000;

export class Timeline {
  readonly element: HTMLElement;
  readonly #ticks: HTMLElement;
  readonly #track: HTMLElement;
  readonly #spans: HTMLElement;
  readonly #band: HTMLElement;
  readonly #selection: HTMLElement;
  readonly #cursor: HTMLElement;
  readonly #handlers: TimelineHandlers;
  #dayStart = 0;
  #dayEnd = 86_400_000;
  #viewStart = 0;
  #viewEnd = 86_400_000;
  #spanList: readonly RecordedSpan[] = [];
  #cursorMs: number | undefined;
  #selected: { fromMs: number; toMs: number } | undefined;

  constructor(handlers: TimelineHandlers) {
    this.#handlers = handlers;
    this.element = div('timeline');
    this.#band = div('select-band');
    this.#band.title = 'Drag here (or Shift-drag on the track) to select a range to export';
    this.#ticks = div('ticks');
    this.#track = div('track');
    this.#track.title = 'Click or drag to play from that moment; the wheel zooms';
    this.#spans = div('spans');
    this.#selection = div('selection');
    this.#selection.hidden = true;
    this.#cursor = div('cursor');
    this.#cursor.hidden = true;
    this.#track.append(this.#spans, this.#selection, this.#cursor);
    this.element.append(this.#band, this.#track, this.#ticks);
    this.#track.addEventListener('pointerdown', (ev) => this.#drag(ev, ev.shiftKey ? 'select' : 'seek'));
    this.#band.addEventListener('pointerdown', (ev) => this.#drag(ev, 'select'));
    this.element.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      this.zoom(ev.deltaY < 0 ? 0.5 : 2, this.#timeAt(ev.clientX));
    }, { passive: false });
  }

  get view(): { startMs: number; endMs: number } {
    return { startMs: this.#viewStart, endMs: this.#viewEnd };
  }

  setDay(startMs: number, endMs: number): void {
    this.#dayStart = this.#viewStart = startMs;
    this.#dayEnd = this.#viewEnd = endMs;
    this.#selected = undefined;
    this.#render();
  }

  setSpans(spans: readonly RecordedSpan[]): void {
    this.#spanList = spans;
    this.#render();
  }

  /** The playhead; while it plays out of view, the view follows it. */
  setCursor(ms: number | undefined): void {
    this.#cursorMs = ms;
    if (ms !== undefined && (ms < this.#viewStart || ms > this.#viewEnd)) {
      const width = this.#viewEnd - this.#viewStart;
      this.#setView(ms - width * 0.1, ms + width * 0.9);
    }
    this.#renderCursor();
  }

  setSelection(range: { fromMs: number; toMs: number } | undefined): void {
    this.#selected = range;
    this.#renderSelection();
  }

  /** factor < 1 zooms in; the time under `aroundMs` (default the playhead, else the middle) stays where it is. */
  zoom(factor: number, aroundMs?: number): void {
    const around = aroundMs ?? this.#cursorMs ?? (this.#viewStart + this.#viewEnd) / 2;
    const width = Math.min(this.#dayEnd - this.#dayStart, Math.max(MIN_VIEW_MS, (this.#viewEnd - this.#viewStart) * factor));
    const share = (around - this.#viewStart) / (this.#viewEnd - this.#viewStart);
    this.#setView(around - width * share, around - width * share + width);
  }

  /** Moves the view by a share of its width (negative: earlier). */
  pan(share: number): void {
    const width = this.#viewEnd - this.#viewStart;
    this.#setView(this.#viewStart + width * share, this.#viewEnd + width * share);
  }

  fitDay(): void {
    this.#setView(this.#dayStart, this.#dayEnd);
  }

  /** Shows [startMs, endMs] with a margin (at least 5 minutes, at most the day). */
  show(startMs: number, endMs: number): void {
    const margin = Math.max((endMs - startMs) * 0.05, 30_000);
    const width = Math.max(MIN_VIEW_MS, endMs - startMs + 2 * margin);
    const middle = (startMs + endMs) / 2;
    this.#setView(middle - width / 2, middle + width / 2);
  }

  #setView(start: number, end: number): void {
    const width = end - start;
    const clampedStart = Math.min(Math.max(start, this.#dayStart), this.#dayEnd - width);
    this.#viewStart = Math.max(this.#dayStart, clampedStart);
    this.#viewEnd = Math.min(this.#dayEnd, this.#viewStart + width);
    this.#render();
  }

  #timeAt(clientX: number): number {
    const box = this.#track.getBoundingClientRect();
    const share = Math.min(1, Math.max(0, (clientX - box.left) / Math.max(1, box.width)));
    return this.#viewStart + share * (this.#viewEnd - this.#viewStart);
  }

  #left(ms: number): string {
    return `${((ms - this.#viewStart) / (this.#viewEnd - this.#viewStart)) * 100}%`;
  }

  #drag(down: PointerEvent, mode: 'seek' | 'select'): void {
    if (down.button !== 0) return;
    down.preventDefault();
    const target = down.currentTarget as HTMLElement;
    target.setPointerCapture(down.pointerId);
    const anchor = this.#timeAt(down.clientX);
    const move = (ev: PointerEvent): void => {
      const at = this.#timeAt(ev.clientX);
      if (mode === 'seek') {
        this.#cursorMs = at;
        this.#renderCursor();
        this.#handlers.onScrub(at);
      } else {
        this.setSelection({ fromMs: Math.min(anchor, at), toMs: Math.max(anchor, at) });
      }
    };
    const up = (ev: PointerEvent): void => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
      const at = this.#timeAt(ev.clientX);
      if (mode === 'seek') {
        this.#handlers.onSeek(at);
        return;
      }
      const range = { fromMs: Math.min(anchor, at), toMs: Math.max(anchor, at) };
      this.setSelection(range.toMs - range.fromMs >= MIN_SELECTION_MS ? range : undefined);
      this.#handlers.onSelect(this.#selected);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
    if (mode === 'seek') move(down);
  }

  #render(): void {
    this.element.dataset['viewStart'] = String(Math.round(this.#viewStart));
    this.element.dataset['viewEnd'] = String(Math.round(this.#viewEnd));
    const spans = this.#spanList.filter((s) => s.endMs > this.#viewStart && s.startMs < this.#viewEnd);
    this.#spans.replaceChildren(
      ...spans.map((s) => {
        const el = div(s.open ? 'span open' : 'span');
        el.dataset['start'] = String(s.startMs);
        el.dataset['end'] = String(s.endMs);
        const from = Math.max(s.startMs, this.#viewStart);
        const to = Math.min(s.endMs, this.#viewEnd);
        el.style.left = this.#left(from);
        el.style.width = `${((to - from) / (this.#viewEnd - this.#viewStart)) * 100}%`;
        el.title = `recorded ${clockTime(s.startMs)} – ${s.open ? 'now' : clockTime(s.endMs)}`;
        return el;
      }),
    );
    this.#renderTicks();
    this.#renderSelection();
    this.#renderCursor();
  }

  #renderTicks(): void {
    const width = this.#viewEnd - this.#viewStart;
    const stepMin = TICK_STEPS_MIN.find((m) => width / (m * 60_000) <= MAX_TICKS) ?? 180;
    const step = stepMin * 60_000;
    const marks: HTMLElement[] = [];
    // Marks at whole steps of the local clock (the day starts at local midnight).
    for (let t = this.#dayStart + Math.ceil((this.#viewStart - this.#dayStart) / step) * step; t <= this.#viewEnd; t += step) {
      const mark = div('tick');
      mark.style.left = this.#left(t);
      mark.textContent = clockTime(t, false);
      marks.push(mark);
    }
    this.#ticks.replaceChildren(...marks);
  }

  #renderSelection(): void {
    const sel = this.#selected;
    this.#selection.hidden = sel === undefined;
    if (sel === undefined) return;
    this.#selection.dataset['from'] = String(Math.round(sel.fromMs));
    this.#selection.dataset['to'] = String(Math.round(sel.toMs));
    const from = Math.max(sel.fromMs, this.#viewStart);
    const to = Math.min(sel.toMs, this.#viewEnd);
    this.#selection.style.left = this.#left(from);
    this.#selection.style.width = `${(Math.max(0, to - from) / (this.#viewEnd - this.#viewStart)) * 100}%`;
  }

  #renderCursor(): void {
    const ms = this.#cursorMs;
    this.#cursor.hidden = ms === undefined || ms < this.#viewStart || ms > this.#viewEnd;
    if (ms !== undefined) {
      this.#cursor.style.left = this.#left(ms);
      this.#cursor.dataset['at'] = String(Math.round(ms));
    }
  }
}

function div(className: string): HTMLElement {
  const el = document.createElement('div');
  el.className = className;
  return el;
}
