// Reused fragment memory end to end: what the recording wrote and what a live viewer kept are the pictures sent,
// although the blocks behind them went round many times (poisoned on every return to the pool).
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { NativeStreamAssembler } from '../../src/ingest/native-stream-assembler.js';
import { FragmentMemory } from '../../src/media/fragment-memory.js';
import type { VideoAccessUnit } from '../../src/rtp/access-unit.js';
import { OpenSegmentJournal } from '../../src/recording/open-journal.js';
import { SegmentWriter } from '../../src/recording/segment-writer.js';
import { SequenceStore } from '../../src/recording/sequence-store.js';
import { WriteScheduler } from '../../src/recording/write-scheduler.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import type { StreamItem } from '../../src/stream/stream-item.js';
import { seededRandom, tempDir } from '../media/fixtures.js';

const SPS = Buffer.from('6742c00cd901419f9f011000000300100000030320f142a480', 'hex');
const PPS = Buffer.from('68cb83cb20', 'hex');
const PICTURES = 300;
const GOP = 10;

/** A picture of random bytes (no long runs of one value, unlike the poison), as one NAL unit. */
function picture(random: () => number, index: number): VideoAccessUnit {
  const keyframe = index % GOP === 0;
  const size = keyframe ? 6000 + Math.floor(random() * 3000) : 300 + Math.floor(random() * 2500);
  const nal = Buffer.alloc(size);
  for (let i = 0; i < size; i++) nal[i] = Math.floor(random() * 256);
  nal[0] = keyframe ? 0x65 : 0x41;
  return { kind: 'video', codec: 'h264', nalus: [nal], bytes: size, rtpTimestamp: index * 3600, keyframe } as VideoAccessUnit;
}

/** The sample as the fragment carries it: a 4-byte length, then the NAL unit. */
function sampleBytes(au: VideoAccessUnit): Buffer {
  const nal = au.nalus[0] as Buffer;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(nal.length);
  return Buffer.concat([length, nal]);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.mp4')) out.push(join(entry.parentPath, entry.name));
  }
  return out.sort();
}

test('reused fragment memory: every picture reaches the recording intact, and a live viewer keeps what it was given', async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'rec');
  await mkdir(recordPath);
  const memory = new FragmentMemory({ slabBytes: 16 * 1024, poolBytes: 256 * 1024, poison: true });
  const hub = new StreamHub('door');
  const writer = new SegmentWriter({
    cameraId: 'door',
    recordPath,
    format: 'fmp4',
    segmentSeconds: 1,
    sequences: new SequenceStore(join(dir, 'work'), recordPath),
    journal: new OpenSegmentJournal(join(dir, 'work')),
    log: pino({ level: 'silent' }),
    remux: async () => undefined,
    onSegmentClosed: () => undefined,
    writeScheduler: new WriteScheduler({ periodMs: 30 }),
  });
  const recording = hub.subscribe({ kind: 'recording', maxQueuedBytes: 64 * 1024 * 1024, handle: (item) => writer.handle(item), handlerHoldsLeases: true });
  let watched = false;
  const assembler = new NativeStreamAssembler(
    { onInit: (init) => hub.publishInit(init), onFragment: (fragment) => hub.publishFragment(fragment) },
    { audio: undefined, mayHoldPictures: () => !watched, memory },
  );
  hub.beforeLiveJoin(() => assembler.sendHeld());
  assembler.setParameterSets({ codec: 'h264', sps: SPS, pps: [PPS] });

  // A viewer that keeps every fragment's bytes (as a socket's send queue may) and a copy made when it got them.
  const kept: Array<{ data: Buffer; copy: Buffer }> = [];
  let viewer: { unsubscribe(): void } | undefined;
  const random = seededRandom(7);
  const sent: VideoAccessUnit[] = [];
  for (let i = 0; i < PICTURES; i++) {
    if (i === 100) {
      // Long enough for the writer to have written the cached GOP: only the cache's own hold keeps it now.
      await sleep(150);
      watched = true;
      viewer = hub.subscribe({
        kind: 'live',
        maxQueuedBytes: 64 * 1024 * 1024,
        handle: (item: StreamItem) => {
          if (item.type === 'fragment') kept.push({ data: item.fragment.data, copy: Buffer.from(item.fragment.data) });
        },
      });
    }
    if (i === 160) {
      viewer?.unsubscribe();
      watched = false;
    }
    const au = picture(random, i);
    sent.push(au);
    assembler.pushVideo(au, i * 3600, Date.now());
    // Now and then the loop lets the writer's tick and its writes run, so holds end while pictures keep coming.
    if (i % 7 === 0) await sleep(5);
  }
  assembler.sendHeld();
  hub.end('stopped');
  await recording.drained();
  await writer.close();

  assert.ok(memory.reuses > memory.allocations, `the blocks went round (${memory.reuses} reuses, ${memory.allocations} allocations)`);
  const files = await filesUnder(recordPath);
  assert.ok(files.length >= 3, `the recording rolled over files (${files.length})`);
  const recorded = Buffer.concat(await Promise.all(files.map((f) => readFile(f))));
  const missing = sent.map((au, i) => (recorded.includes(sampleBytes(au)) ? -1 : i)).filter((i) => i >= 0);
  assert.deepEqual(missing, [], 'every picture is in the recording, byte for byte');
  // The viewer joined before picture 100: it got the GOP cache from the keyframe before (90), then every picture live.
  const viewed = Buffer.concat(kept.map((k) => k.copy));
  const notViewed = sent.slice(90, 160).map((au, i) => (viewed.includes(sampleBytes(au)) ? -1 : 90 + i)).filter((i) => i >= 0);
  assert.deepEqual(notViewed, [], 'the viewer got the cached GOP and the live pictures, byte for byte');
  kept.forEach(({ data, copy }, i) => assert.ok(data.equals(copy), `what the viewer kept (fragment ${i}) was never overwritten`));
});
