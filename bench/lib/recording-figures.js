// Benchmark "recording", the figures: one run's numbers flattened, the medians over a subject's runs, the ratios of
// each recorder subject to the baseline, and the summary table on stderr.
import { median, r1, r2 } from './numbers.js';
import { INGEST, isRecorder } from './recording-subjects.js';

const NONE = { cpuPercent: 0, rssPeakMiB: 0, rssMeanMiB: 0, pssMiB: 0, uniqueRssMiB: 0, processes: 0 };

/**
 * One run's figures, flattened. Memory totals over the subject's processes: rssTotal, the sum of each role's peak RSS
 * (shared pages once per process); at the window's end pssTotal (PSS) and uniqueRssTotal (private pages + shared pages
 * once, see WindowSampler).
 */
export function figures(subject, res) {
  const node = res.roles.node ?? NONE;
  const ff = res.roles.ffmpeg ?? NONE;
  const other = res.roles.other ?? NONE;
  return {
    subject,
    cpu: node.cpuPercent + ff.cpuPercent + other.cpuPercent,
    nodeCpu: node.cpuPercent,
    ffmpegCpu: ff.cpuPercent,
    otherCpu: other.cpuPercent,
    nodeRss: node.rssPeakMiB,
    nodePss: node.pssMiB,
    ffmpegRss: ff.rssPeakMiB,
    ffmpegPss: ff.pssMiB,
    rssTotal: node.rssPeakMiB + ff.rssPeakMiB + other.rssPeakMiB,
    pssTotal: node.pssMiB + ff.pssMiB + other.pssMiB,
    uniqueRssTotal: node.uniqueRssMiB + ff.uniqueRssMiB + other.uniqueRssMiB,
    ffmpegProcs: ff.processes,
    otherProcs: other.processes,
    kbps: res.writtenKbpsPerCamera,
    lowCameras: res.lowCameras,
    segmentFiles: res.segmentFiles,
    restarts: res.restarts,
    restartsInWindow: res.restartsInWindow,
    fallbacks: res.fallbacks ?? 0,
    camerasCpu: res.roles.cameras?.cpuPercent ?? NaN,
    machineBusy: res.machineBusyPercent,
    seconds: res.seconds,
  };
}

/** The JSON line of one subject at one camera count (`stream`: its name, WxH@KBPS): medians over its runs. */
export function summarize(count, stream, subject, runs, opts) {
  const pick = (k) => median(runs.map((r) => r[k])) ?? NaN;
  const recorder = isRecorder(subject);
  const line = {
    bench: 'recording',
    figure: 'usage',
    cameras: count,
    stream,
    subject,
    ingest: INGEST[subject] ?? null,
    runs: runs.length,
    window_seconds: r1(pick('seconds')),
    cpu_percent_of_one_core: r2(pick('cpu')),
    cpu_percent_runs: runs.map((r) => r2(r.cpu)),
    node_cpu_percent: recorder ? r2(pick('nodeCpu')) : 0,
    ffmpeg_cpu_percent: r2(pick('ffmpegCpu')),
    other_cpu_percent: r2(pick('otherCpu')),
    node_rss_mib: recorder ? r1(pick('nodeRss')) : 0,
    node_pss_mib: recorder ? r1(pick('nodePss')) : 0,
    ffmpeg_rss_mib_total: r1(pick('ffmpegRss')),
    ffmpeg_pss_mib_total: r1(pick('ffmpegPss')),
    rss_mib_total: r1(pick('rssTotal')), // Σ of per-process RSS (peak): shared libraries counted once per process
    pss_mib_total: r1(pick('pssTotal')),
    rss_shared_once_mib_total: r1(pick('uniqueRssTotal')), // private pages + shared pages once: the ratio's measure
    ffmpeg_processes: Math.round(pick('ffmpegProcs')),
    other_processes: Math.round(pick('otherProcs')),
    written_kbps_per_camera: Math.round(pick('kbps')),
    cameras_below_half_rate: Math.max(...runs.map((r) => r.lowCameras)),
    segment_files: Math.round(pick('segmentFiles')),
    restarts: Math.max(...runs.map((r) => r.restarts)), // whole run, start-up included (baseline: ffmpegs that exited)
    restarts_in_window: Math.max(...runs.map((r) => r.restartsInWindow)),
    retried_runs: runs.reduce((a, r) => a + r.retries, 0), // runs repeated after a starved attempt (see StarvedError)
    fallbacks_to_ffmpeg: recorder ? Math.max(...runs.map((r) => r.fallbacks)) : null,
    camera_servers_cpu_percent: r1(pick('camerasCpu')),
    machine_busy_percent_of_all_cpus: r1(pick('machineBusy')),
  };
  if (subject === 'vigil-flags') {
    line.node_args = runs[0]?.nodeArgs;
    if (opts.recorderBin !== undefined) line.recorder_bin = opts.recorderBin;
  }
  return line;
}

/** Figure names per recorder subject and targets: CPU ratio ≤ target, memory (PSS) ratio ≤ target. */
const RATIO_FIGURES = {
  native: { cpu: 'cpu_ratio_native_to_baseline', cpuTarget: 0.3, mem: 'rss_ratio_native_to_baseline', memTarget: 0.2 },
  'vigil-ffmpeg': { cpu: 'cpu_ratio_vigil_ffmpeg_to_baseline', cpuTarget: 1.3, mem: 'rss_ratio_vigil_ffmpeg_to_baseline', memTarget: undefined },
  'vigil-flags': { cpu: 'cpu_ratio_vigil_flags_to_baseline', cpuTarget: 0.3, mem: 'rss_ratio_vigil_flags_to_baseline', memTarget: 0.2 },
};

/** The ratio lines of one recorder subject against the baseline of the same camera count (pairs: same repeat). */
export function ratioFigures(count, subject, line, base, runs, baseRuns) {
  const spec = RATIO_FIGURES[subject];
  const cpuRatio = line.cpu_percent_of_one_core / base.cpu_percent_of_one_core;
  const memRatio = line.rss_shared_once_mib_total / base.rss_shared_once_mib_total;
  const cpu = {
    bench: 'recording', cameras: count, figure: spec.cpu, subject, ratio: r2(cpuRatio),
    pair_ratios: runs.map((v, i) => r2(v.cpu / baseRuns[i].cpu)),
    cpu_percent: line.cpu_percent_of_one_core, baseline_cpu_percent: base.cpu_percent_of_one_core,
    target: spec.cpuTarget, pass: cpuRatio <= spec.cpuTarget,
  };
  // The same measure on both sides, at the window's end: the resident memory of the subject's processes with pages they
  // share counted once (the baseline ffmpegs' libraries once, not once per ffmpeg), i.e. what it keeps resident on a
  // machine of its own. Beside it PSS (which also divides pages shared with unrelated processes, e.g. other node
  // processes on the machine, so it flatters the recorder) and the plain sum of RSS (libraries once per ffmpeg).
  const mem = {
    bench: 'recording', cameras: count, figure: spec.mem, subject, measure: 'rss_shared_once', ratio: r2(memRatio),
    pair_ratios: runs.map((v, i) => r2(v.uniqueRssTotal / baseRuns[i].uniqueRssTotal)),
    mib: line.rss_shared_once_mib_total, baseline_mib: base.rss_shared_once_mib_total,
    ratio_pss: r2(line.pss_mib_total / base.pss_mib_total), pss_mib: line.pss_mib_total, baseline_pss_mib: base.pss_mib_total,
    ratio_rss_sum: r2(line.rss_mib_total / base.rss_mib_total), rss_mib: line.rss_mib_total, baseline_rss_mib: base.rss_mib_total,
  };
  if (spec.memTarget !== undefined) Object.assign(mem, { target: spec.memTarget, pass: memRatio <= spec.memTarget });
  if (subject === 'vigil-flags') cpu.node_args = mem.node_args = line.node_args;
  return { cpu, mem, cpuRatio, memRatio };
}

/** The summary table on stderr: one row per camera count and subject. */
export function printTable(rows, setup) {
  const head = ['cams', 'stream', 'subject', 'CPU % (1 core) [runs]', 'node CPU %', 'ffmpeg CPU %', 'RSS MiB node / ffmpeg Σ', 'RSS shared once MiB', 'PSS MiB Σ', 'kbit/s/cam', 'low cams', 'restarts window (all)', 'retried runs', 'cam servers CPU %', 'machine busy %', 'CPU ÷ baseline', 'mem ÷ baseline: RSS shared once (PSS)'];
  const body = rows.map((r) => [
    String(r.cameras),
    r.stream,
    r.subject,
    r.cpu_percent_of_one_core.toFixed(1) + ` [${r.cpu_percent_runs.map((x) => x.toFixed(1)).join(', ')}]`,
    isRecorder(r.subject) ? r.node_cpu_percent.toFixed(1) : '-',
    r.ffmpeg_cpu_percent.toFixed(1),
    `${isRecorder(r.subject) ? r.node_rss_mib.toFixed(0) : '-'} / ${r.ffmpeg_rss_mib_total.toFixed(0)}`,
    r.rss_shared_once_mib_total.toFixed(0),
    r.pss_mib_total.toFixed(0),
    String(r.written_kbps_per_camera),
    String(r.cameras_below_half_rate),
    `${r.restarts_in_window} (${r.restarts})`,
    String(r.retried_runs),
    r.camera_servers_cpu_percent.toFixed(1),
    r.machine_busy_percent_of_all_cpus.toFixed(0),
    r.cpuRatio === undefined ? '' : `${r.cpuRatio.toFixed(2)}x`,
    r.memRatio === undefined ? '' : `${r.memRatio.toFixed(2)}x (${r.pssRatio.toFixed(2)}x)`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  const what = `recording: subjects ${setup.subjects.join(', ')}; cameras ${setup.cameras.join(', ')} ` +
    `(stream WxH@kbit/s, ${setup.fps} fps, GOP ${setup.gop}, ${setup.per_server} per GStreamer process; ` +
    `with B-frames: ${Object.entries(setup.bframe_cameras).map(([c, b]) => `${b} of ${c}`).join(', ')}); ` +
    `warm-up ${setup.warmup_seconds} s, window ${setup.window_seconds} s, ${setup.repeats} repeat(s), medians. ` +
    'CPU and memory: the subject\'s processes only (camera servers shown apart); RSS shared once and PSS at the window\'s end.';
  process.stderr.write(['', what, fmt(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(fmt), ''].join('\n') + '\n');
}
