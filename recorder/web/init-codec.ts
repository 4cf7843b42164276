// Reads an fMP4 init segment (ftyp+moov) in the browser and builds the MSE codecs parameter from avcC / esds.

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  end: number;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);
/** Bytes between a sample entry's header and its child boxes. */
const VISUAL_ENTRY_FIELDS = 78;
const AUDIO_ENTRY_FIELDS = 28;

function readBoxes(view: DataView, start: number, end: number): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    const type = String.fromCharCode(view.getUint8(at + 4), view.getUint8(at + 5), view.getUint8(at + 6), view.getUint8(at + 7));
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) break;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) break;
    out.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return out;
}

/** Every sample entry box (avc1, mp4a, ...) under moov/trak/mdia/minf/stbl/stsd. */
function sampleEntries(view: DataView, start: number, end: number): Box[] {
  const found: Box[] = [];
  for (const box of readBoxes(view, start, end)) {
    if (CONTAINERS.has(box.type)) found.push(...sampleEntries(view, box.start, box.end));
    else if (box.type === 'stsd') found.push(...readBoxes(view, box.start + 8, box.end));
  }
  return found;
}

function hex2(n: number): string {
  return n.toString(16).toUpperCase().padStart(2, '0');
}

function avcCodec(view: DataView, entry: Box): string | null {
  const avcC = readBoxes(view, entry.start + VISUAL_ENTRY_FIELDS, entry.end).find((b) => b.type === 'avcC');
  if (avcC === undefined || avcC.end - avcC.start < 4) return null;
  return `${entry.type}.${hex2(view.getUint8(avcC.start + 1))}${hex2(view.getUint8(avcC.start + 2))}${hex2(view.getUint8(avcC.start + 3))}`;
}

/** Reads one MPEG-4 descriptor header: tag and the expandable size. */
function descriptor(view: DataView, at: number, end: number): { tag: number; start: number; end: number } | null {
  if (at >= end) return null;
  const tag = view.getUint8(at);
  let size = 0;
  let p = at + 1;
  for (let i = 0; i < 4 && p < end; i++) {
    const b = view.getUint8(p++);
    size = (size << 7) | (b & 0x7f);
    if ((b & 0x80) === 0) break;
  }
  return { tag, start: p, end: Math.min(end, p + size) };
}

function mp4aCodec(view: DataView, entry: Box): string | null {
  const esds = readBoxes(view, entry.start + AUDIO_ENTRY_FIELDS, entry.end).find((b) => b.type === 'esds');
  if (esds === undefined) return null;
  const es = descriptor(view, esds.start + 4, esds.end);
  if (es === null || es.tag !== 3) return null;
  const flags = view.getUint8(es.start + 2);
  let at = es.start + 3;
  if (flags & 0x80) at += 2;
  if (flags & 0x40) at += 1 + view.getUint8(at);
  if (flags & 0x20) at += 2;
  const dcd = descriptor(view, at, es.end);
  if (dcd === null || dcd.tag !== 4) return null;
  const oti = view.getUint8(dcd.start);
  const dsi = descriptor(view, dcd.start + 13, dcd.end);
  if (oti !== 0x40 || dsi === null || dsi.tag !== 5 || dsi.start >= dsi.end) return `mp4a.${hex2(oti)}`;
  let aot = view.getUint8(dsi.start) >> 3;
  if (aot === 31 && dsi.start + 1 < dsi.end) aot = 32 + (((view.getUint8(dsi.start) & 0x07) << 3) | (view.getUint8(dsi.start + 1) >> 5));
  return `mp4a.40.${aot}`;
}

/** 'avc1.42C01E' or 'avc1.4D401F,mp4a.40.2'; null when a track's codec cannot be read here (e.g. HEVC). */
export function codecsFromInit(init: ArrayBuffer): string | null {
  const view = new DataView(init);
  const codecs: string[] = [];
  for (const entry of sampleEntries(view, 0, view.byteLength)) {
    const codec = entry.type === 'avc1' || entry.type === 'avc3' ? avcCodec(view, entry) : entry.type === 'mp4a' ? mp4aCodec(view, entry) : null;
    if (codec === null) return null;
    codecs.push(codec);
  }
  return codecs.length > 0 ? codecs.join(',') : null;
}
