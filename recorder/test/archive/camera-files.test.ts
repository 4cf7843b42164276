// One view of a camera's files now (index + writer): closed ones after the camera's folders were read, the writer's
// files, the ones being closed as the listing shows them, and the two size rules (where the bytes are, or the named file).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CameraFiles, type WriterFile } from '../../src/archive/camera-files.js';
import { SegmentIndex } from '../../src/archive/segment-index.js';

const T0 = Date.UTC(2026, 10, 28, 12);

test('a camera’s files now: closed after its folders are read, the writer’s with their sizes, those being closed for the listing', async () => {
  const index = new SegmentIndex();
  const ensured: string[] = [];
  const writer: WriterFile[] = [
    // Being closed: the fmp4 file at its own name.
    { cameraId: 'gate', filename: 'gate/2026-11-28/gate_20261128T120100Z_2.mp4', start: new Date(T0 + 60_000), sequence: 2, size: 900, writtenPath: '/rec/gate/2026-11-28/gate_20261128T120100Z_2.mp4', writtenSize: 900 },
    // Open, mp4 format: its bytes are in a .part, another file than the one named.
    { cameraId: 'gate', filename: 'gate/2026-11-28/gate_20261128T120200Z_3.mp4', start: new Date(T0 + 120_000), sequence: 3, size: 400, writtenPath: '/rec/gate/2026-11-28/gate_20261128T120200Z_3.mp4.part', writtenSize: 384 },
  ];
  const files = new CameraFiles({
    recordPath: '/rec',
    index,
    catalog: {
      ensureCamera: async (id) => {
        ensured.push(id);
        index.add({ cameraId: id, filename: `${id}/2026-11-28/${id}_20261128T120000Z_1.mp4`, start: new Date(T0), end: new Date(T0 + 60_000), sequence: 1, size: 1000, mtime: (T0 + 60_000) / 1000 });
      },
    },
    writerFiles: (id) => (id === 'gate' ? writer : []),
    openFile: (id) => (id === 'gate' ? writer[1] : undefined),
  });
  assert.deepEqual((await files.closed('gate', T0, T0 + 3_600_000)).map((s) => s.sequence), [1]);
  assert.deepEqual(ensured, ['gate'], 'the camera’s folders are read before the index is asked');
  assert.deepEqual(files.unindexed('gate').map((s) => s.sequence), [2, 3]);
  assert.deepEqual(files.finishing('gate', T0 + 130_000), [{ cameraId: 'gate', filename: writer[0]?.filename, start: writer[0]?.start, end: new Date(T0 + 130_000), sequence: 2, size: 900, mtime: (T0 + 130_000) / 1000 }], 'the open file is not among those being closed');
  assert.equal(files.writtenSize('gate', writer[1]?.filename as string, 'written'), 384, 'play reads the .part up to its whole fragments');
  assert.equal(files.writtenSize('gate', writer[1]?.filename as string, 'named'), undefined, 'the named file is not the .part');
  assert.equal(files.writtenSize('gate', writer[0]?.filename as string, 'named'), 900);
  assert.equal(files.writtenSize('gate', 'gate/2026-11-28/gate_20261128T120000Z_1.mp4', 'written'), undefined, 'a closed file: its size on disk counts');
  assert.deepEqual(files.unindexed('yard'), []);
});
