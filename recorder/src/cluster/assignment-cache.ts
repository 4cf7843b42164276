// The cameras this node was last told to record, kept in cluster.dataDir/node_<name>/ so a restart without the API records them.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Camera } from '../cameras/camera.js';

const FILE = 'assignment.json';
/** The node's key and certificate (tls.kubernetes_csr): a node that leaves keeps them, only deleting node_<name> by hand loses them. */
export const NODE_TLS_DIR = 'tls';

export class AssignmentCache {
  readonly dir: string;
  readonly #nodeName: string;

  constructor(dataDir: string, nodeName: string) {
    this.dir = join(dataDir, `node_${nodeName}`);
    this.#nodeName = nodeName;
  }

  /** The cached cameras, or undefined when there is no cache (or it belongs to another node name). */
  async read(): Promise<Camera[] | undefined> {
    try {
      const doc = JSON.parse(await readFile(join(this.dir, FILE), 'utf8')) as { nodeName?: string; cameras?: Camera[] };
      return doc.nodeName === this.#nodeName && Array.isArray(doc.cameras) ? doc.cameras : undefined;
    } catch {
      return undefined;
    }
  }

  /** Written atomically, readable by this user only (the camera URLs carry credentials). */
  async write(cameras: readonly Camera[]): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, `${FILE}.tmp`);
    await writeFile(tmp, JSON.stringify({ nodeName: this.#nodeName, savedAt: new Date().toISOString(), cameras }), { mode: 0o600 });
    await rename(tmp, join(this.dir, FILE));
  }

  /** `POST /cluster/leave`: the node's cluster state is erased, but for its key and certificate (tls/), which it keeps. */
  async erase(): Promise<void> {
    const entries = await readdir(this.dir).catch(() => [] as string[]);
    if (!entries.includes(NODE_TLS_DIR)) {
      await rm(this.dir, { recursive: true, force: true });
      return;
    }
    await Promise.all(entries.filter((e) => e !== NODE_TLS_DIR).map((e) => rm(join(this.dir, e), { recursive: true, force: true })));
  }
}
