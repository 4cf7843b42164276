// Copying a byte range between buffers with the fewest allocations Node.js allows.

/**
 * Copies `source[start, end)` into `target` at `at`; returns the number of bytes copied (`end - start`).
 *
 * `source.copy(target, at, start, end)` makes a Uint8Array view of the range first whenever the range is not all of
 * `source` (and `subarray` + `copy` makes one too); on the ingest path, once per RTP packet, those views are most of
 * what the garbage collector sees. This makes one plain Uint8Array (no Buffer prototype set-up), and none when the
 * range is all of `source`. The caller makes sure the range fits in `target`.
 */
export function copyBytes(source: Uint8Array, start: number, end: number, target: Uint8Array, at: number): number {
  const length = end - start;
  if (start === 0 && length === source.length) target.set(source, at);
  else target.set(new Uint8Array(source.buffer, source.byteOffset + start, length), at);
  return length;
}
