// Runs the built vigil-recorder as a real child process with a config written for the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const RECORDER_BIN = fileURLToPath(new URL('../../../bin/vigil-recorder.js', import.meta.url));

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function sha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface RecorderProcess {
  readonly url: string;
  readonly dir: string;
  readonly recordPath: string;
  readonly workDir: string;
  readonly configFile: string;
  readonly confDir: string;
  /** Everything the process wrote, stdout and stderr, as text. */
  output(): string;
  logs(): LogLine[];
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  readonly pid: number;
  signal(sig: NodeJS.Signals): void;
  waitExit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM and wait (SIGKILL after 15 s); safe to call twice. */
  stop(): Promise<void>;
  writeConfig(config: Record<string, unknown>): Promise<void>;
}

export interface StartOptions {
  dir: string;
  config: Record<string, unknown>;
  /** Extra conf.d files: name → document. */
  confD?: Record<string, Record<string, unknown>>;
  /** Reuse a port (restart of the same node). */
  port?: number;
  waitListening?: boolean;
  /** Extra environment (KUBECONFIG, VIGIL_* overrides); the test runner's own is inherited. */
  env?: Record<string, string>;
  /** Keep the config's own record_path and work_dir (a cluster Pod's configuration, its paths already rewritten). */
  ownPaths?: boolean;
  /** Make record_path before the start, as an installer does (default true): the recorder never creates it. */
  createRecordPath?: boolean;
  /**
   * Run it in a UTS namespace of its own with this hostname, as in a container of its own (needs root: unshare --uts).
   * The recorder keeps the pid of the spawned process (unshare and sh exec it).
   */
  hostname?: string;
}

/**
 * Starts the recorder; resolves once it logs that it listens (or at once, when waitListening is false). Without a
 * `port` the recorder binds port 0 and the URL is read from its "listening on" line: a port picked beforehand can be
 * taken by another process (an outgoing connection's ephemeral port) before the recorder binds it.
 */
export async function startRecorderProcess(opts: StartOptions): Promise<RecorderProcess> {
  const port = opts.port ?? 0;
  const recordPath = join(opts.dir, 'recordings');
  const workDir = join(opts.dir, 'work');
  const configFile = join(opts.dir, 'config.yaml');
  const confDir = join(opts.dir, 'conf.d');
  await mkdir(confDir, { recursive: true });
  if (opts.createRecordPath !== false) await mkdir(recordPath, { recursive: true });
  const writeConfig = async (config: Record<string, unknown>): Promise<void> => {
    const paths = opts.ownPaths === true ? {} : { record_path: recordPath, work_dir: workDir };
    await writeFile(configFile, stringify({ ...paths, ...config, listen: (config['listen'] as string | undefined) ?? `127.0.0.1:${port}`, metrics: (config['metrics'] as object | undefined) ?? { listen: '127.0.0.1:0' } }));
  };
  await writeConfig(opts.config);
  for (const [name, doc] of Object.entries(opts.confD ?? {})) await writeFile(join(confDir, name), stringify(doc));

  const command = [process.execPath, RECORDER_BIN, '--config', configFile, '--conf-dir', confDir];
  const [file, ...args] = opts.hostname === undefined ? command : ['unshare', '--uts', '/bin/sh', '-c', 'hostname "$0" && exec "$@"', opts.hostname, ...command];
  const child: ChildProcess = spawn(file as string, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  let text = '';
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  const onText = (chunk: Buffer): void => {
    const s = chunk.toString('utf8');
    text += s;
    for (const raw of s.split('\n')) {
      if (!raw.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(raw) as LogLine);
      } catch {
        // a line split across chunks: the text copy still has it
      }
    }
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onText);
  child.stderr?.on('data', onText);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((e) => {
    exitInfo = e;
    for (const w of waiters) w();
  });
  const killOnExit = (): void => {
    if (exitInfo === undefined) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const waitForLog = (predicate: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = lines.find(predicate);
        if (hit !== undefined) {
          cleanup();
          resolve(hit);
        } else if (exitInfo !== undefined) {
          cleanup();
          reject(new Error(`recorder exited (${exitInfo.code ?? exitInfo.signal}) before the awaited log line; output:\n${text.slice(-3000)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for a log line; output:\n${text.slice(-3000)}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const waitExit = async (timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`recorder did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  let url = port === 0 ? undefined : `http://127.0.0.1:${port}`;
  const proc: RecorderProcess = {
    get url(): string {
      if (url === undefined) throw new Error('the recorder has not said where it listens yet (started with waitListening: false)');
      return url;
    },
    dir: opts.dir,
    recordPath,
    workDir,
    configFile,
    confDir,
    output: () => text,
    logs: () => lines,
    waitForLog,
    pid: child.pid ?? -1,
    signal: (sig) => {
      if (exitInfo === undefined) child.kill(sig);
    },
    waitExit,
    stop: async () => {
      if (exitInfo !== undefined) return;
      child.kill('SIGTERM');
      await waitExit(15_000).catch(async () => {
        child.kill('SIGKILL');
        await exited;
      });
    },
    writeConfig,
  };
  if (opts.waitListening !== false) {
    try {
      const listening = await waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('listening on'));
      url = String(listening['url']); // https:// when the config sets tls
    } catch (err) {
      await proc.stop();
      throw err;
    }
  }
  return proc;
}
