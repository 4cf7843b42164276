// A throw-away copy of this Debian machine to install packages into: an overlay of / with a private upper layer,
// entered with chroot in a private mount namespace (one per command, so nothing stays mounted when a test ends).
// Packages installed there run their real maintainer scripts against a real dpkg and rpm database, and what they
// change lands in the upper layer only. Needs root (mount, chroot); `canMakeThrowawayRoot` says why not otherwise.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { runCommand, type CommandResult } from '@vigil/testing/command';
import { tempDir } from '@vigil/testing/temp-dir';

/** What a package's scripts find on PATH (rpm scriptlets get /sbin:/bin:/usr/sbin:/usr/bin whatever we pass). */
const ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Where the systemctl stand-in writes the calls the package made. */
export const SYSTEMCTL_CALLS = '/root/systemctl-calls';

// The entry script: mount the overlay and what a system needs (/proc, /dev, a fresh /run that says systemd is running,
// so the package's scripts take their systemd branch), then chroot. The command runs as the last exec.
const ENTER = `set -e
root="$1"; shift
mount -t overlay overlay -o "lowerdir=/,upperdir=$root/upper,workdir=$root/work" "$root/merged"
mount -t proc proc "$root/merged/proc"
mount --rbind /dev "$root/merged/dev"
mount -t tmpfs tmpfs "$root/merged/run"
mkdir -p "$root/merged/run/systemd/system"
exec chroot "$root/merged" "$@"
`;

// The systemctl of the root: every call is recorded; enable and disable go to the real one, offline (it edits the unit
// links itself), the calls that need a running systemd only succeed.
const SYSTEMCTL_STAND_IN = `#!/bin/sh
echo "$*" >> ${SYSTEMCTL_CALLS}
case " $* " in
  *" enable "*|*" disable "*|*" is-enabled "*) SYSTEMD_OFFLINE=1 exec /usr/bin/systemctl.real "$@" ;;
esac
exit 0
`;

export async function canMakeThrowawayRoot(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (mount and chroot); run the package tests as root';
  const probe = await runCommand('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt']);
  return probe.code === 0 ? undefined : `cannot mount in a private namespace here: ${probe.stderr.trim()}`;
}

export class ThrowawayRoot {
  private readonly children = new Set<ChildProcess>();

  private constructor(private readonly dir: string) {}

  static async create(t: TestContext): Promise<ThrowawayRoot> {
    const dir = await tempDir(t, 'vigil-root-');
    for (const sub of ['upper', 'work', 'merged']) await mkdir(join(dir, sub));
    await writeFile(join(dir, 'enter.sh'), ENTER);
    const root = new ThrowawayRoot(dir);
    t.after(() => root.killAll());
    const moved = await root.run(['sh', '-c', `mv /usr/bin/systemctl /usr/bin/systemctl.real && cat > /usr/bin/systemctl && chmod 755 /usr/bin/systemctl && : > ${SYSTEMCTL_CALLS}`], { input: SYSTEMCTL_STAND_IN });
    if (moved.code !== 0) throw new Error(`preparing the throw-away root failed: ${moved.stderr}`);
    return root;
  }

  /** Runs argv inside the root as root, with a clean environment, to its end. */
  run(argv: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
    return runCommand('unshare', ['-m', 'sh', join(this.dir, 'enter.sh'), this.dir, 'env', '-i', `PATH=${ROOT_PATH}`, 'HOME=/root', 'LANG=C.UTF-8', ...argv], opts);
  }

  /** Starts argv inside the root; its pid is the program's own (every step execs). Killed when the test ends. */
  spawn(argv: string[]): ChildProcess {
    const child = spawn('unshare', ['-m', 'sh', join(this.dir, 'enter.sh'), this.dir, 'env', '-i', `PATH=${ROOT_PATH}`, 'LANG=C.UTF-8', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** A copy of a host file into the root (the upper layer holds it; nothing is mounted between commands). */
  async copyIn(hostFile: string, path: string): Promise<void> {
    const r = await runCommand('cp', [hostFile, join(this.dir, 'upper', path)]);
    if (r.code !== 0) throw new Error(`copying ${hostFile} into the root failed: ${r.stderr}`);
  }

  async readFile(path: string): Promise<string> {
    const r = await this.run(['cat', path]);
    if (r.code !== 0) throw new Error(`${path} cannot be read in the root: ${r.stderr}`);
    return r.stdout;
  }

  async writeFile(path: string, content: string): Promise<void> {
    const r = await this.run(['sh', '-c', 'cat > "$1"', 'sh', path], { input: content });
    if (r.code !== 0) throw new Error(`${path} cannot be written in the root: ${r.stderr}`);
  }

  async exists(path: string): Promise<boolean> {
    return (await this.run(['test', '-e', path])).code === 0;
  }

  /** `stat -c FORMAT` of a path in the root. */
  async stat(path: string, format = '%U:%G %a'): Promise<string> {
    const r = await this.run(['stat', '-c', format, path]);
    if (r.code !== 0) throw new Error(`stat ${path}: ${r.stderr}`);
    return r.stdout.trim();
  }

  /** The systemctl calls the packages made since the last call of this method. */
  async takeSystemctlCalls(): Promise<string[]> {
    const r = await this.run(['sh', '-c', `cat ${SYSTEMCTL_CALLS} && : > ${SYSTEMCTL_CALLS}`]);
    return r.stdout.split('\n').filter((line) => line !== '');
  }

  private killAll(): void {
    for (const child of this.children) child.kill('SIGKILL');
  }
}
