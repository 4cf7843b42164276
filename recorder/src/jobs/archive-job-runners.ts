// Export (stream copy) and time-lapse (x264) of a window of local recordings.
import { rename, rm, statfs } from 'node:fs/promises';
import { collectWindowFiles, writeConcatList, type LocalArchive, type WindowFile } from './export-plan.js';
import { cleanOutpoint, probeVideoPackets } from './clean-cut.js';
import { probeGopSeconds } from './gop-probe.js';
import type { JobRunContext, JobRunner } from './job-queue.js';
import { JobFailure, type JobRecord } from './job-record.js';
import { runMediaTool } from './media-tool.js';

export interface ArchiveJobDeps {
  archive: LocalArchive;
  mediaTool: string;
  workDir: string;
  /** Bytes that must stay free on the work_dir file system after the job's estimated output. */
  minFreeBytes: number;
}

const OUTPUT_FPS = 30;

/** Stream copy into one MP4 with its index up front (export and assembled exports). */
export const COPY_OUTPUT_ARGS = ['-map', '0:v:0', '-map', '0:a?', '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4'];

/** The time-lapse encoding of the spec: PTS / speed, 30 fps, at most 1280 px wide, x264 veryfast CRF 23, no audio. */
export function timelapseOutputArgs(speed: number): string[] {
  return [
    '-map', '0:v:0', '-an',
    '-vf', `setpts=PTS/${speed},fps=${OUTPUT_FPS},scale='min(1280,iw)':-2`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p',
    '-movflags', '+faststart', '-f', 'mp4',
  ];
}

export async function ensureSpace(workDir: string, estimateBytes: number, minFreeBytes: number): Promise<void> {
  const s = await statfs(workDir);
  const free = s.bavail * s.bsize;
  if (free < estimateBytes + minFreeBytes) {
    throw new JobFailure('disk_full', `the job needs about ${Math.ceil(estimateBytes / 1e6)} MB and ${Math.ceil(minFreeBytes / 1e6)} MB must stay free; ${Math.floor(free / 1e6)} MB are free`);
  }
}

function windowBytes(files: readonly WindowFile[], fromMs: number, toMs: number): number {
  let bytes = 0;
  for (const f of files) {
    const span = Math.max(1, f.endMs - f.startMs);
    const used = Math.max(0, Math.min(f.endMs, toMs) - Math.max(f.startMs, fromMs));
    bytes += f.size * Math.min(1, used / span);
  }
  return bytes;
}

/** Runs the tool into a temporary file and renames it to the result only when it succeeded. */
export async function produce(ctx: JobRunContext, mediaTool: string, inputArgs: string[], outputArgs: string[], expectedSeconds: number): Promise<void> {
  const tmp = `${ctx.resultPath}.tmp`;
  try {
    await runMediaTool(mediaTool, { args: [...inputArgs, ...outputArgs, '-y', tmp], expectedSeconds, onProgress: ctx.progress, signal: ctx.signal });
    await rename(tmp, ctx.resultPath);
  } finally {
    await rm(tmp, { force: true });
  }
}

export function exportRunner(deps: ArchiveJobDeps): JobRunner {
  return async (job: JobRecord, ctx: JobRunContext) => {
    const fromMs = job.from * 1000;
    const toMs = job.to * 1000;
    const files = await collectWindowFiles(deps.archive, job.camera_id, fromMs, toMs, ctx.scratchDir);
    await ensureSpace(deps.workDir, windowBytes(files, fromMs, toMs), deps.minFreeBytes);
    const { listPath, seconds } = await writeConcatList(files, fromMs, toMs, ctx.scratchDir, cleanCutIn(deps.mediaTool));
    await produce(ctx, deps.mediaTool, ['-f', 'concat', '-safe', '0', '-i', listPath], COPY_OUTPUT_ARGS, seconds);
  };
}

export function timelapseRunner(deps: ArchiveJobDeps): JobRunner {
  return async (job: JobRecord, ctx: JobRunContext) => {
    const speed = job.speed ?? 2;
    const fromMs = job.from * 1000;
    const toMs = job.to * 1000;
    const files = await collectWindowFiles(deps.archive, job.camera_id, fromMs, toMs, ctx.scratchDir);
    // The output holds 1/speed of the input's time, re-encoded: the input bytes / speed is a generous estimate.
    await ensureSpace(deps.workDir, windowBytes(files, fromMs, toMs) / speed, deps.minFreeBytes);
    const { listPath, seconds } = await writeConcatList(files, fromMs, toMs, ctx.scratchDir, cleanCutIn(deps.mediaTool));
    // 30 output frames per second need 30 × speed input frames per input second… or, once speed is
    // high enough, only one frame every speed/30 s: when keyframes come at least that often, decode only them.
    const gop = await probeGopSeconds(deps.mediaTool, (files[0] as WindowFile).path);
    const keyframesOnly = gop !== undefined && speed >= OUTPUT_FPS * gop;
    const input = [...(keyframesOnly ? ['-skip_frame', 'nokey'] : []), '-f', 'concat', '-safe', '0', '-i', listPath];
    await produce(ctx, deps.mediaTool, input, timelapseOutputArgs(speed), seconds / speed);
  };
}

/** Cuts the window's last file where no B-frame picture goes missing (clean-cut.ts); at `to` when it cannot tell. */
function cleanCutIn(mediaTool: string): (file: WindowFile, toSeconds: number) => Promise<number | undefined> {
  return async (file, toSeconds) => {
    const packets = await probeVideoPackets(mediaTool, file.path);
    return packets === undefined ? toSeconds : cleanOutpoint(packets, toSeconds);
  };
}
