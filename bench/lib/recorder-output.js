// Follows a recorder child's log lines: when it listens, when its archive walk ends, a failed start; the last lines for errors.
import { createInterface } from 'node:readline';

export function watchRecorderOutput(child, label) {
  const tail = [];
  const keep = (line) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
  };
  const events = { listening: undefined, walk: undefined, fatal: undefined };
  let wake = () => undefined;
  createInterface({ input: child.stderr }).on('line', (line) => {
    keep(line);
    // bin/vigil-recorder.js reports a failed start on stderr (the process may linger while the walk runs on).
    if (line.startsWith('vigil-recorder:')) events.fatal ??= line;
    wake();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    keep(line);
    let rec;
    try {
      rec = JSON.parse(line);
    } catch {
      return;
    }
    const at = performance.now();
    if (events.listening === undefined && typeof rec.msg === 'string' && rec.msg.startsWith('listening on')) events.listening = { at, order: events.walk === undefined ? 'before_walk_end' : 'after_walk_end' };
    if (events.walk === undefined && rec.msg === 'archive walk finished') events.walk = { at, cameras: rec.cameras, segments: rec.segments, ms: rec.ms };
    wake();
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  /** Resolves with the event once it happened; throws with the last lines when the recorder failed, exited or took too long. */
  const waitFor = async (key, timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    while (events[key] === undefined) {
      if (events.fatal !== undefined) throw new Error(`recorder ${label} failed to start: ${events.fatal}\n${tail.join('\n')}`);
      if (exited()) throw new Error(`recorder ${label} exited (code ${child.exitCode}, signal ${child.signalCode}):\n${tail.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`recorder ${label}: no "${key}" within ${timeoutMs / 1000} s:\n${tail.join('\n')}`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    return events[key];
  };
  return { events, tail, waitFor };
}
