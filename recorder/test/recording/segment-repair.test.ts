// Crash repair: a segment left open ends where its media ends (not at the repair), its mtime says so, and a later walk agrees.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ArchiveCatalog } from '../../src/archive/archive-catalog.js';
import { SegmentIndex } from '../../src/archive/segment-index.js';
import { scanFragmentedFile } from '../../src/media/fmp4-file.js';
import { OpenSegmentJournal } from '../../src/recording/open-journal.js';
import { remuxToProgressive } from '../../src/recording/remux.js';
import { repairOpenSegments } from '../../src/recording/segment-repair.js';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { encodeFragmented, tempDir } from '../media/fixtures.js';

const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'];
const log = pino({ level: 'silent' });

for (const format of ['fmp4', 'mp4'] as const) {
  test(`kill -9 then repair (${format}): the end is the named start plus the media, the file's mtime is that end, a walk reads the same`, async (t) => {
    const dir = await tempDir(t);
    const recordPath = join(dir, 'recordings');
    const journal = new OpenSegmentJournal(join(dir, 'work'));
    // A segment that began days ago; the crash cut its last fragment short, and the file was last written just now.
    const start = new Date('2026-03-10T10:00:00.400Z');
    const filename = segmentRelativePath('yard', start, 7);
    const finalPath = join(recordPath, filename);
    const written = format === 'mp4' ? `${finalPath}.part` : finalPath;
    const source = await encodeFragmented(dir, 'source.mp4', { seconds: 4, video: X264, size: '320x240' });
    const bytes = await readFile(source);
    await mkdir(dirname(finalPath), { recursive: true });
    await writeFile(written, bytes.subarray(0, bytes.length - 1200));
    await journal.add({ cameraId: 'yard', filename, format, start: start.toISOString(), sequence: 7 });
    const media = (await scanFragmentedFile(written)).duration;

    const outcome = await repairOpenSegments({ recordPath, journal, log, remux: (part, final) => remuxToProgressive('ffmpeg', part, final), onRepaired: () => undefined });
    const seg = outcome.repaired[0];
    assert.ok(seg !== undefined, 'repaired');
    const expectedEnd = Date.parse('2026-03-10T10:00:00Z') + Math.round(media * 1000);
    assert.equal(seg.end.getTime(), expectedEnd, 'start as named (whole seconds) + the media');
    const st = await stat(finalPath);
    assert.ok(Math.abs(st.mtimeMs - expectedEnd) < 1, `the file's mtime is the end (${new Date(st.mtimeMs).toISOString()}), not the repair time`);
    assert.equal(seg.mtime, Math.floor(expectedEnd / 1000));

    // The next start without a database walks the file: the same end and mtime.
    const index = new SegmentIndex();
    await new ArchiveCatalog({ recordPath, index, log, isOpen: () => false }).startInitialWalk();
    const walked = index.segments('yard')[0];
    assert.ok(walked !== undefined);
    assert.ok(Math.abs(walked.end.getTime() - expectedEnd) <= (format === 'mp4' ? 100 : 0), `walked end ${walked.end.toISOString()}`);
    assert.equal(walked.mtime, seg.mtime);
  });
}
