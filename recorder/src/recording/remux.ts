// Turns a finished fragmented `.part` file into a progressive MP4 (moov written at the end) with ffmpeg.
import { open, rename, unlink } from 'node:fs/promises';
import { ManagedChild } from '../process/managed-child.js';

export async function remuxToProgressive(ffmpegPath: string, partPath: string, finalPath: string): Promise<void> {
  const tmp = `${finalPath}.remux.tmp`;
  const errors: string[] = [];
  const child = new ManagedChild({
    command: ffmpegPath,
    args: ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', partPath, '-map', '0', '-c', 'copy', '-f', 'mp4', tmp],
    onStdout: () => undefined,
    onStderrLine: (line) => {
      if (errors.length < 5) errors.push(line);
    },
  });
  const exit = await child.exited;
  if (exit.code !== 0) {
    await unlink(tmp).catch(() => undefined);
    throw new Error(`remux of ${partPath} failed (exit ${exit.code ?? exit.signal}): ${errors.join('; ')}`);
  }
  const fh = await open(tmp, 'r+');
  try {
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await rename(tmp, finalPath);
  await unlink(partPath).catch(() => undefined);
}
