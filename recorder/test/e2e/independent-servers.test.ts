// Both ingest paths with default settings against RTSP servers nobody here wrote (rtsp-server-perl, VLC): UDP-only servers record, BYE reconnects at once.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startPerlRtspServer } from '@vigil/testing/rtsp-perl-server';
import { tempDir } from '@vigil/testing/temp-dir';
import { startVlcRtspServer } from '@vigil/testing/vlc-rtsp-server';
import { startRecorderProcess } from '../support/recorder-process.js';
import { getJson, segmentFiles } from './helpers.js';

interface CameraEntry {
  id: string;
  state: string;
  ingest: string | null;
  rtsp_transport: string | null;
  rtsp_transport_reason: string | null;
}

test('default settings against servers that refuse RTP over TCP (rtsp-server-perl: 400, VLC: 461): both paths fall back to UDP, record, and remember it', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const perl = await startPerlRtspServer({ audio: true });
  t.after(() => perl.stop());
  const vlc = await startVlcRtspServer({ seconds: 30 });
  t.after(() => vlc.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 5,
      record: { segment_seconds: 2 },
      cameras: [
        { id: 'perl-native', source: perl.url },
        { id: 'perl-ffmpeg', source: perl.url, ingest: 'ffmpeg' },
        { id: 'vlc-native', source: vlc.url },
        { id: 'vlc-ffmpeg', source: vlc.url, ingest: 'ffmpeg' },
      ],
    },
  });
  t.after(() => rec.stop());
  const ids = ['perl-native', 'perl-ffmpeg', 'vlc-native', 'vlc-ffmpeg'];
  const closed = async (id: string): Promise<string[]> => (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith(`${id}/`));
  await waitUntil(async () => {
    for (const id of ids) if ((await closed(id)).length < 2) return false;
    return true;
  }, 60_000, 'two files from every camera').catch((err: unknown) => {
    const warnings = rec.logs().filter((l) => l.level >= 40).map((l) => `${String(l['camera'])} ${l.msg} ${String(l['err'] ?? l['reason'] ?? l['ffmpeg'] ?? '')}`);
    throw new Error(`${String(err)}; warnings: ${warnings.slice(-12).join(' | ')}`);
  });
  const list = (await getJson(`${rec.url}/api/cameras`)).body as CameraEntry[];
  for (const id of ids) {
    const entry = list.find((c) => c.id === id);
    assert.equal(entry?.state, 'recording', id);
    assert.equal(entry?.ingest, id.endsWith('ffmpeg') ? 'ffmpeg' : 'native', id);
    assert.equal(entry?.rtsp_transport, 'udp', `${id} reads over UDP`);
    assert.match(entry?.rtsp_transport_reason ?? '', id.startsWith('perl') ? /refused TCP \(400 Bad Request\)/ : /refused TCP \(461 Unsupported transport\)/, id);
    const files = await closed(id);
    const p = await probe(join(rec.recordPath, files[0] as string));
    assert.equal(p.errors, '', `${id}: ${files[0]} decodes cleanly`);
    assert.ok(p.playSeconds >= 1.5, `${id}: ${p.playSeconds} s`);
    // What worked is kept in work_dir for the next start.
    const kept = JSON.parse(await readFile(join(rec.workDir, 'rtsp-transports', id), 'utf8')) as { transport: string };
    assert.equal(kept.transport, 'udp');
  }
});

test('RTCP BYE (VLC at the end of each loop) ends the session at once: recording resumes within 2 s, on both paths', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const vlc = await startVlcRtspServer({ seconds: 6 });
  t.after(() => vlc.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 10,
      record: { segment_seconds: 60 },
      cameras: [
        { id: 'bye-native', source: vlc.url, rtsp_transport: 'udp' },
        { id: 'bye-ffmpeg', source: vlc.url, rtsp_transport: 'udp', ingest: 'ffmpeg' },
      ],
    },
  });
  t.after(() => rec.stop());
  const current = async (id: string): Promise<string | undefined> => {
    const r = await getJson(`${rec.url}/api/archive/${id}/current`);
    return r.status === 200 ? (r.body as { filename: string }).filename : undefined;
  };
  for (const id of ['bye-native', 'bye-ffmpeg']) await waitUntil(async () => (await current(id)) !== undefined, 30_000, `${id} records`);
  // Each camera's stream ends at the end of a loop; the next file must start within 2 s of that.
  const resumed = await Promise.all(['bye-native', 'bye-ffmpeg'].map(async (id) => {
    const first = await current(id);
    await waitUntil(async () => (await current(id)) !== first, 20_000, `${id}: the file of the first loop closes`, 50);
    const endedAt = Date.now();
    await waitUntil(async () => {
      const now = await current(id);
      return now !== undefined && now !== first;
    }, 10_000, `${id}: a new file after the BYE`, 50);
    return { id, ms: Date.now() - endedAt };
  }));
  // Native reconnects in one round trip and catches the keyframe that starts the next loop. ffmpeg is restarted at once
  // too, but a new ffmpeg takes ~1.4 s to its first output here (start, probing) and so joins at the next keyframe.
  const bound: Record<string, number> = { 'bye-native': 2_000, 'bye-ffmpeg': 3_500 };
  for (const { id, ms } of resumed) assert.ok(ms <= (bound[id] as number), `${id}: recording resumed ${ms} ms after the stream ended`);
  assert.ok(rec.logs().some((l) => l.msg === 'camera sent RTCP BYE; reconnecting' && l['camera'] === 'bye-native'), 'the native session says why it ended');
  assert.equal(rec.logs().filter((l) => l.msg === 'camera went silent; restarting ingest').length, 0, 'no camera waited for stall_seconds');
});
