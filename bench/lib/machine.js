// What the benchmarks say about the machine they ran on: its CPUs, Node and ffmpeg, and how loaded it was.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { r2 } from './numbers.js';

/** The first line of every run: the CPUs, their model, Node's and ffmpeg's versions. */
export function machineFigure() {
  const ffmpeg = (() => {
    try {
      return execFileSync(process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0];
    } catch {
      return 'ffmpeg not found';
    }
  })();
  return { bench: 'machine', cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '', node: process.version, ffmpeg };
}

/** The load average now (`at`: 'start' or 'end' of a benchmark): the machine may be shared, this says how quiet it was. */
export function loadAverageFigure(bench, at) {
  return { bench, figure: 'load_average', at, loadavg_1_5_15: loadavg().map((x) => r2(x)), cpus: cpus().length };
}
