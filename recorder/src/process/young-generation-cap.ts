// Caps V8's young generation at 4 MiB, from inside the process (the flag that sets its size works only at startup).
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation's size at which it stops growing: two semi-spaces of 2 MiB. */
export const YOUNG_GENERATION_CAP_BYTES = 4 * 1024 * 1024;

/** Flags by which the operator sized the young generation themselves: then it is left alone. */
const SIZING_FLAGS = /--(max-semi-space-size|min-semi-space-size|semi-space-growth-factor|max-heap-size)\b/;

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * V8 starts the young generation at 2 MiB and doubles it, up to 32 MiB (on 64-bit), while many objects survive its
 * collections. Native ingest keeps it at 32 MiB of which about a third is used: a quarter of the recorder's memory
 * at 50 cameras. Capped at 4 MiB the recorder measured ~29 MiB less PSS for the same CPU (docs/benchmarks.md). Only
 * `--max-semi-space-size` sets the cap, and only at startup, which `vigil-recorder` cannot choose for itself when
 * started as `node …/vigil-recorder.js`; the growth factor, however, is read at every growth: once the young
 * generation has reached the cap, a factor of 1 keeps it there. Checked after each collection until then.
 *
 * Returns whether the cap applies (not when the operator sized the young generation with a flag of their own).
 */
export function capYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env['NODE_OPTIONS'] ?? ''): boolean {
  if (execArgv.some((arg) => SIZING_FLAGS.test(arg)) || SIZING_FLAGS.test(nodeOptions)) return false;
  const freezeIfGrown = (): boolean => {
    if (newSpaceBytes() < YOUNG_GENERATION_CAP_BYTES) return false;
    setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (freezeIfGrown()) return true;
  const observer = new PerformanceObserver(() => {
    if (freezeIfGrown()) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return true;
}
