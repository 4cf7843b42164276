// Free and total bytes of the file system holding a path.
import { statfs } from 'node:fs/promises';

export interface DiskSpace {
  totalBytes: number;
  freeBytes: number;
}

export type DiskSpaceReader = (path: string) => Promise<DiskSpace>;

export const readDiskSpace: DiskSpaceReader = async (path) => {
  const s = await statfs(path);
  return { totalBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize };
};
