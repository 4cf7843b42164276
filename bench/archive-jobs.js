// Benchmark "jobs": archive jobs of the recorder against their baselines, timed in the same invocation.
//   export:    4 h of one-minute segments (POST …/export, submit → `done`) vs `cat` of the same 240 files into one
//              file on the same disk; target ≥ 50 % of the copy speed (time_cat / time_export ≥ 0.5).
//   timelapse: 1 h at speed 60 (POST …/timelapse, submit → `done`) vs the plain full-decode ffmpeg command with the
//              spec's settings on the same files; target ≥ 3× faster (time_plain / time_timelapse ≥ 3).
// One 1-minute fMP4 segment is encoded once, the way the recorder writes them (720p25, 2 Mbps, GOP 2 s, 200 ms
// fragments), and copied (not hard-linked: every file has its own pages in the cache, as in a real archive) 240 times
// under the recorder's names, with mtime = segment end. The page cache is dropped before every timed run when we may.
// CPU per run: cutime + cstime of the process that reaps the tool (the bench for cat and the plain command, the
// recorder for its media tool; the recorder's own Node CPU is not included).
//   node bench/run.js jobs [--repeats N]       N export/cat pairs (default 2), order alternating, medians
//   VIGIL_BENCH_TIMELAPSE_REPEATS=N            time-lapse pairs (default 1: the plain command takes 2–3 min here)
//   VIGIL_BENCH_JOBS_DIAG=1                    also the recorder's export command run directly, with and without
//                                              +faststart (where the export's time goes)
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rm, statfs, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startArchiveRecorder } from './lib/archive-recorder.js';
import { makeTempDir, removeTempDir, sleep } from './lib/lifecycle.js';
import { loadAverageFigure } from './lib/machine.js';
import { gopSeconds, mediaInfo } from './lib/media-probe.js';
import { envInt, median, r2, r3 } from './lib/numbers.js';
import { descendants } from './lib/proc.js';
import { makeArchive, SEGMENT_ENCODE, SEGMENT_SECONDS } from './lib/segment-archive.js';
import { coldCache, fsyncSeconds, runTool, withChildCpu } from './lib/tool-timing.js';

export const description =
  'archive jobs: export of 4 h vs `cat` of the same files (target ≥ 50 % of the copy speed); time-lapse of 1 h at speed 60 vs the plain full-decode ffmpeg command (target ≥ 3× faster)';

const DIST = fileURLToPath(new URL('../recorder/dist', import.meta.url));
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';

const CAMERA = 'bench-cam';
// 22:00 UTC: the 4-hour archive spans two UTC date folders, as real ones do.
const ARCHIVE_START = Date.UTC(2025, 2, 9, 22, 0, 0) / 1000;
const EXPORT_SECONDS = 4 * 3600;
const TIMELAPSE_SECONDS = 3600;
const SPEED = 60; // the segments' GOP is 2 s at 25 fps: 60 ≥ 30 × 2, so the recorder decodes keyframes only
const POLL_MS = 100;
const TARGET_EXPORT_FRACTION = 0.5;
const TARGET_TIMELAPSE_SPEEDUP = 3;

/** The plain command of the spec's time-lapse settings: every frame decoded. */
const plainTimelapseArgs = (list, out) => [
  '-f', 'concat', '-safe', '0', '-i', list,
  '-vf', `setpts=PTS/${SPEED},fps=30,scale='min(1280,iw)':-2`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-an', out,
];

export const defaults = {
  repeats: 2, // export/cat pairs (order alternates: cat first, then export first, …); medians reported
  timelapseRepeats: envInt('VIGIL_BENCH_TIMELAPSE_REPEATS', 1), // pairs; the plain command takes ~2–3 min on 2 vCPUs
  // Also run the recorder's export command directly, with and without +faststart (where the export's time goes).
  diagnose: process.env.VIGIL_BENCH_JOBS_DIAG === '1',
  keep: false,
};

function log(msg) {
  process.stderr.write(`[jobs] ${msg}\n`);
}

/** The command line of the recorder's media tool child, if one runs now. */
function mediaToolCmdline(recorderPid) {
  for (const p of descendants(recorderPid)) {
    try {
      const argv = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').filter((s) => s !== '');
      if (argv.includes('concat')) return argv;
    } catch {
      // gone
    }
  }
  return undefined;
}

/** POST the job, poll its status every 100 ms until done; seconds from just before the POST to the first `done`. */
async function timedJob(rec, kind, from, to, extra = '') {
  const t0 = performance.now();
  const res = await fetch(`${rec.base}/api/archive/${CAMERA}/${kind}?from=${from}&to=${to}${extra}`, { method: 'POST' });
  const body = await res.json();
  if (res.status !== 202) throw new Error(`POST ${kind} → ${res.status}: ${JSON.stringify(body)}`);
  let cmdline;
  for (;;) {
    const st = await (await fetch(`${rec.base}/api/archive/jobs/${body.job_id}`)).json();
    if (st.state === 'done') {
      const seconds = (performance.now() - t0) / 1000;
      return { seconds, job: st, cmdline, resultPath: join(rec.workDir, 'jobs', `${body.job_id}.mp4`), download: `${rec.base}/api/archive/jobs/${body.job_id}/download` };
    }
    if (st.state === 'failed') throw new Error(`${kind} job failed: ${st.reason}: ${st.message}`);
    if (cmdline === undefined && st.state === 'running') cmdline = mediaToolCmdline(rec.child.pid);
    if (performance.now() - t0 > 900_000) throw new Error(`${kind} job not done after 900 s: ${JSON.stringify(st)}`);
    await sleep(POLL_MS);
  }
}

// ---------------------------------------------------------------------------------------------------------------

export async function run(opts, emit) {
  const { segmentRelativePath } = await import(join(DIST, 'src', 'recording', 'segment-name.js'));
  const tmp = await makeTempDir('vigil-bench-jobs-');
  const common = { bench: 'jobs' };
  const summary = [];
  let rec;
  emit(loadAverageFigure(common.bench, 'start'));
  try {
    // 1. One segment, encoded once.
    const segment = join(tmp, 'segment.mp4');
    const encodeS = await runTool(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...SEGMENT_ENCODE, '-y', segment], { name: 'ffmpeg-encode' });
    const segInfo = mediaInfo(segment, { count: true });
    const segBytes = (await stat(segment)).size;
    const gop = gopSeconds(segment);
    log(`segment: ${(segBytes / 1e6).toFixed(1)} MB, ${segInfo.duration} s, ${segInfo.frames} frames, GOP ${gop} s (encoded in ${encodeS.toFixed(1)} s)`);
    emit({ ...common, figure: 'segment', bytes: segBytes, duration_s: segInfo.duration, frames: segInfo.frames, gop_s: r3(gop), encode_s: r2(encodeS) });

    // 2. The archive: 240 copies (one camera, 4 h), named and dated like the recorder's files.
    const count = EXPORT_SECONDS / SEGMENT_SECONDS;
    const archiveBytes = count * segBytes;
    const fs = await statfs(tmp);
    const need = archiveBytes * (opts.repeats + 2) + 2 * 2 ** 30; // archive + kept export results + one cat output + 2 GiB
    if (fs.bavail * fs.bsize < need) throw new Error(`${tmp}: ${Math.floor((fs.bavail * fs.bsize) / 1e9)} GB free, the benchmark needs ${Math.ceil(need / 1e9)} GB`);
    const recordPath = join(tmp, 'recordings');
    let t0 = performance.now();
    const files = await makeArchive({ recordPath, segment, camera: CAMERA, start: ARCHIVE_START, count, segmentRelativePath });
    execFileSync('sync');
    const days = await readdir(join(recordPath, CAMERA));
    log(`archive: ${files.length} copies, ${(archiveBytes / 1e9).toFixed(2)} GB in ${days.join(', ')}, written + synced in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // 3. The recorder, on that record_path.
    rec = await startArchiveRecorder({ dir: tmp, label: 'jobs', recordPath, config: { metrics: { listen: '127.0.0.1:0' } } });
    if (rec.walk.segments !== count) throw new Error(`the recorder's walk indexed ${rec.walk.segments} segments, expected ${count}`);
    // Warm-up (not timed): one short export, so the first timed job pays no start-up costs of its own.
    await timedJob(rec, 'export', ARCHIVE_START, ARCHIVE_START + 120);

    // 4. Export of 4 h vs cat of the same files, cold cache each, order alternating.
    const outDir = join(tmp, 'out');
    await mkdir(outDir);
    const concatList = async (name, paths) => {
      const path = join(outDir, name);
      await writeFile(path, `ffconcat version 1.0\n${paths.map((f) => `file '${f.replace(/'/g, "'\\''")}'`).join('\n')}\n`);
      return path;
    };
    // The whole files make up the window exactly: the recorder's list has the same lines (no inpoint/outpoint).
    const exportList = await concatList('export.txt', files);
    const exportArgs = (out, faststart) => ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', exportList,
      '-map', '0:v:0', '-map', '0:a?', '-c', 'copy', ...(faststart ? ['-movflags', '+faststart'] : []), '-f', 'mp4', '-y', out];
    const subjects = ['cat', 'export', ...(opts.diagnose ? ['ffmpeg_direct', 'ffmpeg_direct_no_faststart'] : [])];
    const runs = Object.fromEntries(subjects.map((k) => [k, []]));
    let dropped = true;
    let exportCmd;
    /** A process of the bench writing `out`: time, CPU (reaped child of the bench), fsync, size; the file is removed. */
    const local = async (out, command, args, stdoutFd) => {
      const res = await withChildCpu('self', async () => ({ seconds: await runTool(command, args, { stdoutFd, name: command }) }));
      const bytes = (await stat(out)).size;
      const durable = res.seconds + (await fsyncSeconds(out));
      return { ...res, bytes, durable, out };
    };
    for (let r = 0; r < opts.repeats; r++) {
      const order = r % 2 === 0 ? subjects : [...subjects].reverse();
      for (const subject of order) {
        dropped = coldCache() && dropped;
        let m;
        let extra = {};
        if (subject === 'cat') {
          const out = join(outDir, 'cat.out');
          const fd = openSync(out, 'w');
          try {
            m = await local(out, 'cat', files, fd);
          } finally {
            closeSync(fd);
          }
          if (m.bytes !== archiveBytes) throw new Error(`cat wrote ${m.bytes} bytes, expected ${archiveBytes}`);
        } else if (subject === 'export') {
          // CPU: the recorder's media tool, reaped by the recorder (the recorder's own Node CPU is not included).
          m = await withChildCpu(rec.child.pid, () => timedJob(rec, 'export', ARCHIVE_START, ARCHIVE_START + EXPORT_SECONDS));
          m.bytes = m.job.size_bytes;
          m.durable = m.seconds + (await fsyncSeconds(m.resultPath));
          exportCmd ??= m.cmdline;
          const info = mediaInfo(m.download);
          if (Math.abs(info.duration - EXPORT_SECONDS) > 2 || info.frames !== count * segInfo.frames) {
            throw new Error(`export result: ${info.duration} s, ${info.frames} frames; expected ${EXPORT_SECONDS} s, ${count * segInfo.frames}`);
          }
          extra = { result_duration_s: r2(info.duration), result_frames: info.frames };
        } else {
          const out = join(outDir, `${subject}.mp4`);
          m = await local(out, FFMPEG, exportArgs(out, subject === 'ffmpeg_direct'));
        }
        if (m.out !== undefined) await rm(m.out);
        runs[subject].push(m);
        const fig = {
          ...common, figure: 'export_run', subject, repeat: r + 1, seconds: r3(m.seconds), bytes: m.bytes, mb_per_s: r2(m.bytes / 1e6 / m.seconds),
          seconds_incl_fsync: r3(m.durable), cpu_user_s: m.cpu_user_s, cpu_sys_s: m.cpu_sys_s, cache_dropped: dropped, ...extra,
        };
        emit(fig);
        log(`export run ${r + 1} ${subject}: ${m.seconds.toFixed(2)} s (${fig.mb_per_s} MB/s), ${m.durable.toFixed(2)} s with fsync, CPU ${m.cpu_user_s} user + ${m.cpu_sys_s} sys`);
      }
    }
    const med = (subject, key) => median(runs[subject].map((x) => x[key]));
    const catS = med('cat', 'seconds');
    const expS = med('export', 'seconds');
    const catD = med('cat', 'durable');
    const expD = med('export', 'durable');
    const fraction = catS / expS;
    emit({
      ...common, figure: 'export_4h_vs_cat', files: count, bytes: archiveBytes, repeats: opts.repeats, cache_dropped: dropped,
      cat_median_s: r3(catS), export_median_s: r3(expS), cat_mb_per_s: r2(archiveBytes / 1e6 / catS), export_mb_per_s: r2(archiveBytes / 1e6 / expS),
      export_fraction_of_copy_speed: r3(fraction), target_at_least: TARGET_EXPORT_FRACTION, pass: fraction >= TARGET_EXPORT_FRACTION,
      cat_median_incl_fsync_s: r3(catD), export_median_incl_fsync_s: r3(expD), export_fraction_incl_fsync: r3(catD / expD),
      cat_cpu_median_s: r2(median(runs.cat.map((x) => x.cpu_user_s + x.cpu_sys_s))), export_cpu_median_s: r2(median(runs.export.map((x) => x.cpu_user_s + x.cpu_sys_s))),
      media_tool_args: exportCmd?.slice(1).join(' '),
    });
    summary.push(`export 4 h (${count} files, ${(archiveBytes / 1e9).toFixed(2)} GB): cat ${catS.toFixed(2)} s, export ${expS.toFixed(2)} s → ${(fraction * 100).toFixed(0)} % of the copy speed (target ≥ ${TARGET_EXPORT_FRACTION * 100} %) ${fraction >= TARGET_EXPORT_FRACTION ? 'PASS' : 'MISS'}; incl. fsync: cat ${catD.toFixed(2)} s, export ${expD.toFixed(2)} s → ${((catD / expD) * 100).toFixed(0)} %`);
    for (const subject of subjects.slice(2)) {
      const s = med(subject, 'seconds');
      emit({ ...common, figure: 'export_4h_diagnostic', subject, median_s: r3(s), fraction_of_copy_speed: r3(catS / s), median_incl_fsync_s: r3(med(subject, 'durable')), cpu_median_s: r2(median(runs[subject].map((x) => x.cpu_user_s + x.cpu_sys_s))) });
      summary.push(`  diagnostic ${subject}: ${s.toFixed(2)} s → ${((catS / s) * 100).toFixed(0)} % of the copy speed`);
    }

    // 5. Time-lapse of 1 h at speed 60 vs the plain full-decode command, on the same 60 files.
    const tlFiles = files.slice(0, TIMELAPSE_SECONDS / SEGMENT_SECONDS);
    const list = await concatList('timelapse.txt', tlFiles);
    const tl = { plain: [], vigil: [] };
    let tlCmd;
    for (let r = 0; r < opts.timelapseRepeats; r++) {
      const order = r % 2 === 0 ? ['vigil', 'plain'] : ['plain', 'vigil'];
      for (const subject of order) {
        dropped = coldCache() && dropped;
        let m;
        let info;
        if (subject === 'plain') {
          const out = join(outDir, 'plain-timelapse.mp4');
          m = await withChildCpu('self', async () => ({ seconds: await runTool(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...plainTimelapseArgs(list, out)], { name: 'ffmpeg-plain-timelapse' }) }));
          info = mediaInfo(out);
          await rm(out);
        } else {
          // CPU: ffprobe (the GOP probe) and ffmpeg, both children of the recorder.
          m = await withChildCpu(rec.child.pid, () => timedJob(rec, 'timelapse', ARCHIVE_START, ARCHIVE_START + TIMELAPSE_SECONDS, `&speed=${SPEED}`));
          tlCmd ??= m.cmdline;
          info = mediaInfo(m.download);
        }
        const want = TIMELAPSE_SECONDS / SPEED;
        if (Math.abs(info.duration - want) > 1) throw new Error(`${subject} time-lapse: ${info.duration} s, expected ${want} s`);
        tl[subject].push(m);
        emit({ ...common, figure: 'timelapse_run', subject, repeat: r + 1, seconds: r3(m.seconds), cpu_user_s: m.cpu_user_s, cpu_sys_s: m.cpu_sys_s, result_duration_s: r2(info.duration), result_frames: info.frames, cache_dropped: dropped });
        log(`time-lapse run ${r + 1} ${subject}: ${m.seconds.toFixed(2)} s, CPU ${m.cpu_user_s} user + ${m.cpu_sys_s} sys → ${info.duration} s, ${info.frames} frames`);
      }
    }
    const plainS = median(tl.plain.map((x) => x.seconds));
    const vigilS = median(tl.vigil.map((x) => x.seconds));
    const speedup = plainS / vigilS;
    const keyframesOnly = tlCmd === undefined ? null : tlCmd.includes('-skip_frame');
    emit({
      ...common, figure: 'timelapse_1h_x60_vs_plain', files: tlFiles.length, speed: SPEED, gop_s: r3(gop), repeats: opts.timelapseRepeats, cache_dropped: dropped,
      plain_median_s: r3(plainS), timelapse_median_s: r3(vigilS), speedup: r2(speedup), target_at_least: TARGET_TIMELAPSE_SPEEDUP, pass: speedup >= TARGET_TIMELAPSE_SPEEDUP,
      plain_cpu_median_s: r2(median(tl.plain.map((x) => x.cpu_user_s + x.cpu_sys_s))), timelapse_cpu_median_s: r2(median(tl.vigil.map((x) => x.cpu_user_s + x.cpu_sys_s))),
      keyframes_only: keyframesOnly, media_tool_args: tlCmd?.slice(1).join(' '),
    });
    summary.push(`time-lapse 1 h ×${SPEED}: plain ${plainS.toFixed(2)} s, recorder ${vigilS.toFixed(2)} s (keyframes only: ${keyframesOnly}) → ${speedup.toFixed(2)}× (target ≥ ${TARGET_TIMELAPSE_SPEEDUP}×) ${speedup >= TARGET_TIMELAPSE_SPEEDUP ? 'PASS' : 'MISS'}`);
    if (!dropped) summary.push('the page cache could not be dropped (not root): every run read what the previous ones had cached');
  } finally {
    if (rec !== undefined) await rec.stop().catch(() => undefined);
    if (opts.keep) log(`kept ${tmp}`);
    else await removeTempDir(tmp);
  }
  emit(loadAverageFigure(common.bench, 'end'));
  process.stderr.write(`\narchive jobs:\n${summary.map((s) => `  ${s}`).join('\n')}\n\n`);
}
