// The archive page's elements: camera picker and calendar beside the video, transport controls, timeline, export panel.
import { button } from './dom.js';

export interface ArchiveView {
  video: HTMLVideoElement;
  cameraSelect: HTMLSelectElement;
  playButton: HTMLButtonElement;
  speedSelect: HTMLSelectElement;
  liveButton: HTMLButtonElement;
  zoomIn: HTMLButtonElement;
  zoomOut: HTMLButtonElement;
  fitDay: HTMLButtonElement;
  earlier: HTMLButtonElement;
  later: HTMLButtonElement;
  clock: HTMLElement;
  summary: HTMLElement;
  status: HTMLElement;
}

/** Fills `root` and returns the elements the page drives; the components bring their own elements. */
export function buildArchiveView(root: HTMLElement, parts: { timeline: HTMLElement; calendar: HTMLElement; exports: HTMLElement }): ArchiveView {
  const side = el('aside', 'archive-side');
  const cameraSelect = document.createElement('select');
  cameraSelect.id = 'archive-camera';
  cameraSelect.setAttribute('aria-label', 'camera');
  const summary = el('p', 'summary');
  side.append(labelled('Camera', cameraSelect), parts.calendar, summary);

  const main = el('section', 'archive-main');
  const video = document.createElement('video');
  video.id = 'archive-video';
  video.muted = true;
  video.playsInline = true;
  const transport = el('div', 'transport');
  const playButton = button('Play', { id: 'play-button', title: 'play or pause (Space)' });
  // The label says what a press does: it follows the video, whoever started or stopped it.
  video.addEventListener('playing', () => (playButton.textContent = 'Pause'));
  video.addEventListener('pause', () => (playButton.textContent = 'Play'));
  const speedSelect = document.createElement('select');
  speedSelect.id = 'speed';
  speedSelect.setAttribute('aria-label', 'playback speed');
  for (const s of [1, 2, 4, 8]) speedSelect.append(new Option(`${s}×`, String(s), s === 1, s === 1));
  const liveButton = button('● Live', { id: 'live-button', title: 'back to live view' });
  const clock = el('span', 'clock');
  clock.id = 'archive-clock';
  const zoomOut = button('−', { id: 'zoom-out', title: 'zoom out' });
  const zoomIn = button('+', { id: 'zoom-in', title: 'zoom in' });
  const fitDay = button('Day', { id: 'fit-day', title: 'show the whole day' });
  const earlier = button('◀', { id: 'earlier', title: 'earlier' });
  const later = button('▶', { id: 'later', title: 'later' });
  transport.append(playButton, speedSelect, liveButton, clock, el('span', 'spacer'), earlier, zoomOut, fitDay, zoomIn, later);
  const hint = el('p', 'hint');
  hint.textContent = 'Click or drag on the timeline to play from that moment · Space pauses · ←/→ step 10 s · drag in the band above the timeline (or Shift-drag) to select a range.';
  const status = el('p', 'archive-status');
  status.id = 'archive-status';
  status.hidden = true;
  main.append(video, transport, parts.timeline, hint, status, parts.exports);
  root.replaceChildren(side, main);
  return { video, cameraSelect, playButton, speedSelect, liveButton, zoomIn, zoomOut, fitDay, earlier, later, clock, summary, status };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}

function labelled(text: string, control: HTMLElement): HTMLElement {
  const label = el('label', 'field');
  label.append(text, control);
  return label;
}
