// One Pod on a node of the process kubelet: its init containers in order, then its containers as local processes,
// restarted by restartPolicy with a back-off, readiness from their probes, its real status, and its end (graceful:
// SIGTERM, the grace period, SIGKILL; or lost with its node: SIGKILL and nothing more until the node is back).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Container, V1ContainerState, V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { localCommand, placeholderCommand, rewriteContainerPaths, type ContainerImages, type LocalContainer } from './container-images.js';
import { ContainerProcess, type ContainerExit, type ContainerHandle } from './container-process.js';
import { containerEnv, expandReferences, NotReadyYet } from './pod-env.js';
import type { PodSources } from './pod-sources.js';
import { podStatus, statusKey, type ContainerView } from './pod-status.js';
import { containerMounts, materializeVolumes, SERVICE_ACCOUNT_MOUNT } from './pod-volumes.js';
import { probeOnce } from './probes.js';

export interface PodWorkerOptions {
  nodeDir: string;
  images: ContainerImages;
  sources: PodSources;
  /** The API as Pods reach it (the fault proxy), and its CA. */
  api: { url: string; caPem: string };
  /** Every token issued for the Pod is told here (so a cut-off of its node can include it). */
  onToken(token: string): void;
  patchStatus(pod: V1Pod, status: V1PodStatus): Promise<void>;
  /** The back-off between restarts: the first restart at once, then initial, doubled up to max. */
  backoff: { initialMs: number; maxMs: number; resetAfterMs: number };
  pickPort(): Promise<number>;
}

/** What a test sees of a Pod the kubelet runs. */
export interface PodHandle {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  /** The Pod's ServiceAccount token (undefined until its first container start). */
  readonly token: string | undefined;
  /** containerPort → loopback port (undefined until its first container start). */
  readonly ports: ReadonlyMap<number, number> | undefined;
  container(name: string): ContainerHandle | undefined;
}

interface Slot {
  spec: V1Container;
  proc: ContainerProcess;
  init: boolean;
  restartCount: number;
  /** Restarts in a row that each ended before resetAfterMs: the back-off grows with them. */
  crashes: number;
  dueAt: number;
  /** The container will not start again (init done, or restartPolicy says no). */
  finished: boolean;
  waiting: { reason: string; message?: string } | undefined;
  ready: boolean;
  failuresInARow: number;
  lastProbeAt: number;
  lastState: V1ContainerState;
}

export class PodWorker implements PodHandle {
  readonly uid: string;
  readonly nodeName: string;
  token: string | undefined;
  ports: Map<number, number> | undefined;
  private pod: V1Pod;
  private readonly dir: string;
  private readonly init: Slot[];
  private readonly main: Slot[];
  private readonly startTime = new Date(Math.floor(Date.now() / 1000) * 1000);
  private starting = false;
  private sandboxReady = false;
  private lost = false;
  private terminating = false;
  private lastReported = '';

  constructor(pod: V1Pod, private readonly o: PodWorkerOptions) {
    this.pod = pod;
    this.uid = pod.metadata?.uid ?? '';
    this.nodeName = pod.spec?.nodeName ?? '';
    this.dir = join(o.nodeDir, 'pods', this.uid);
    const slot = (spec: V1Container, init: boolean): Slot => ({ spec, proc: new ContainerProcess(spec.name), init, restartCount: 0, crashes: 0, dueAt: 0, finished: false, waiting: { reason: init ? 'PodInitializing' : 'ContainerCreating' }, ready: false, failuresInARow: 0, lastProbeAt: 0, lastState: {} });
    this.init = (pod.spec?.initContainers ?? []).map((c) => slot(c, true));
    this.main = (pod.spec?.containers ?? []).map((c) => slot(c, false));
  }

  get namespace(): string {
    return this.pod.metadata?.namespace ?? '';
  }

  get name(): string {
    return this.pod.metadata?.name ?? '';
  }

  container(name: string): ContainerHandle | undefined {
    return [...this.main, ...this.init].find((s) => s.spec.name === name)?.proc;
  }

  update(pod: V1Pod): void {
    this.pod = pod;
  }

  private get restartPolicy(): string {
    return this.pod.spec?.restartPolicy ?? 'Always';
  }

  /** One step: start what is due, probe what runs, report the status if it changed. */
  async sync(): Promise<void> {
    if (this.lost || this.terminating) return;
    const pendingInit = this.init.find((s) => !s.finished);
    const due = pendingInit !== undefined ? [pendingInit] : this.main.filter((s) => !s.finished);
    for (const slot of due) if (!slot.proc.running && Date.now() >= slot.dueAt && !this.starting) await this.start(slot);
    await Promise.all(this.main.filter((s) => s.proc.running).map((s) => this.probe(s)));
    await this.report();
  }

  private async start(slot: Slot): Promise<void> {
    this.starting = true;
    try {
      const image = this.o.images[slot.spec.image ?? ''];
      // A placeholder reads nothing: it is given nothing (no volume, no Secret, no token), so it never waits for them.
      const local = image === undefined ? undefined : await this.prepare(slot);
      const dir = local?.dir ?? join(this.dir, 'containers', slot.spec.name);
      await mkdir(dir, { recursive: true });
      this.sandboxReady = true;
      const cmd = image === undefined || local === undefined ? { command: placeholderCommand(slot.init), env: {} } : await localCommand(image, local);
      slot.waiting = undefined;
      slot.ready = false;
      slot.failuresInARow = 0;
      slot.lastProbeAt = 0;
      slot.proc.start(cmd.command, { ...hostEnvironment(), ...cmd.env }, dir, (exit) => this.exited(slot, exit));
    } catch (err) {
      const reason = err instanceof NotReadyYet ? err.reason : 'RunContainerError';
      slot.waiting = { reason, message: (err as Error).message };
      slot.dueAt = Date.now() + 1000;
    } finally {
      this.starting = false;
    }
  }

  /** Volumes, environment, ports and paths of a container, as it starts. */
  private async prepare(slot: Slot): Promise<LocalContainer> {
    const volumes = await materializeVolumes({
      pod: this.pod, podDir: this.dir, nodeDir: this.o.nodeDir, sources: this.o.sources,
      token: async (t) => {
        // One token per Pod, from the TokenRequest API, bound to the Pod (the kubelet renews it at 80% of its life; no test lives that long).
        if (this.token === undefined) {
          this.token = await this.o.sources.serviceAccountToken(this.pod, t);
          this.o.onToken(this.token);
        }
        return this.token;
      },
    });
    const mounts = containerMounts(slot.spec, volumes);
    const api = new URL(this.o.api.url);
    const env = rewriteContainerPaths(await containerEnv(this.pod, slot.spec, this.o.sources, { host: api.hostname, port: Number(api.port) }), mounts) as Record<string, string>;
    const dir = join(this.dir, 'containers', slot.spec.name);
    await mkdir(dir, { recursive: true });
    const credentials = mounts.find(([path]) => path === SERVICE_ACCOUNT_MOUNT);
    if (credentials !== undefined && this.token !== undefined) {
      // A process cannot see the container path of its credentials: it gets a kubeconfig naming the same token and CA.
      env['KUBECONFIG'] = join(dir, 'in-cluster.kubeconfig');
      await writeFile(env['KUBECONFIG'], inClusterKubeconfig(this.o.api.url, join(credentials[1], 'ca.crt'), this.token, this.pod.metadata?.namespace ?? ''), { mode: 0o600 });
    }
    if (this.ports === undefined) {
      const ports = new Map<number, number>();
      for (const c of [...this.init, ...this.main]) for (const p of c.spec.ports ?? []) if (!ports.has(p.containerPort)) ports.set(p.containerPort, await this.o.pickPort());
      this.ports = ports;
    }
    const expand = (list: string[] | undefined): string[] | undefined => list?.map((a) => rewriteContainerPaths(expandReferences(a, env), mounts) as string);
    return {
      namespace: this.pod.metadata?.namespace ?? '', podName: this.pod.metadata?.name ?? '', podUid: this.uid, nodeName: this.nodeName,
      spec: slot.spec, command: expand(slot.spec.command), args: expand(slot.spec.args) ?? [], env, mounts, ports: this.ports, dir, restartCount: slot.restartCount,
    };
  }

  private exited(slot: Slot, exit: ContainerExit): void {
    const exitCode = exit.code ?? 128 + signalNumber(exit.signal);
    const terminated = { exitCode, ...(exit.signal === null ? {} : { signal: signalNumber(exit.signal) }), reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: exit.startedAt, finishedAt: exit.finishedAt, containerID: containerId(this.uid, slot) };
    slot.lastState = { terminated };
    slot.ready = false;
    // Loopback has one network namespace: a port taken since it was picked is picked again for the next run.
    if (slot.proc.runOutput().includes('EADDRINUSE')) this.ports = undefined;
    const policy = this.restartPolicy;
    // A Pod being deleted (or its node gone for good at the end of a test) restarts nothing.
    const again = this.terminating ? false : slot.init ? exitCode !== 0 && policy !== 'Never' : policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    if (!again) {
      slot.finished = true;
      void this.report().catch(() => undefined);
      return;
    }
    const ranMs = exit.finishedAt.getTime() - exit.startedAt.getTime();
    slot.crashes = ranMs >= this.o.backoff.resetAfterMs ? 0 : slot.crashes + 1;
    const delay = slot.crashes <= 1 ? 0 : Math.min(this.o.backoff.initialMs * 2 ** (slot.crashes - 2), this.o.backoff.maxMs);
    slot.dueAt = Date.now() + delay;
    slot.restartCount++;
    slot.waiting = delay === 0 ? { reason: 'ContainerCreating' } : { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${slot.spec.name} pod=${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})` };
    void this.report().catch(() => undefined);
  }

  private async probe(slot: Slot): Promise<void> {
    const probe = slot.spec.readinessProbe;
    const image = this.o.images[slot.spec.image ?? ''];
    // No probe, or a placeholder (nothing of its own listens): ready while it runs.
    if (probe === undefined || image === undefined || (probe.httpGet === undefined && probe.tcpSocket === undefined)) {
      slot.ready = true;
      return;
    }
    const sinceStart = Date.now() - (slot.proc.startedAt?.getTime() ?? 0);
    if (sinceStart < (probe.initialDelaySeconds ?? 0) * 1000) return;
    // The probe's period, at most a second here: tests should not wait 5 s to see a container become ready.
    if (Date.now() - slot.lastProbeAt < Math.min((probe.periodSeconds ?? 10) * 1000, 1000)) return;
    slot.lastProbeAt = Date.now();
    const ok = await probeOnce(probe, slot.spec, this.ports ?? new Map());
    slot.failuresInARow = ok ? 0 : slot.failuresInARow + 1;
    if (ok) slot.ready = true;
    else if (slot.failuresInARow >= (probe.failureThreshold ?? 3)) slot.ready = false;
  }

  private view(slot: Slot): ContainerView {
    const running = slot.proc.running && slot.proc.startedAt !== undefined;
    const state: V1ContainerState = running
      ? { running: { startedAt: slot.proc.startedAt as Date } }
      : slot.finished && slot.lastState.terminated !== undefined ? { terminated: slot.lastState.terminated } : { waiting: slot.waiting ?? { reason: 'ContainerCreating' } };
    const lastState = running || !slot.finished ? slot.lastState : {};
    return { name: slot.spec.name, image: slot.spec.image ?? '', state, lastState, restartCount: slot.restartCount, ready: running && slot.ready, started: running, containerID: slot.proc.runs === 0 ? '' : containerId(this.uid, slot) };
  }

  private async report(): Promise<void> {
    if (this.lost) return;
    const initialized = this.init.every((s) => s.finished && s.lastState.terminated?.exitCode === 0);
    const main = this.main.map((s) => this.view(s));
    const allDone = this.main.every((s) => s.finished);
    const failedInit = this.init.some((s) => s.finished && s.lastState.terminated?.exitCode !== 0);
    const phase = failedInit ? 'Failed' : allDone ? (this.main.every((s) => s.lastState.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed') : initialized && this.main.some((s) => s.proc.runs > 0) ? 'Running' : 'Pending';
    const status = podStatus({ phase, startTime: this.startTime, sandboxReady: this.sandboxReady, initialized, init: this.init.map((s) => this.view(s)), containers: main }, this.pod.status);
    const key = statusKey(status);
    if (key === this.lastReported) return;
    await this.o.patchStatus(this.pod, status);
    this.lastReported = key;
  }

  /** The node is gone: every process SIGKILLed, nothing restarted or reported until found(). */
  lose(): void {
    this.lost = true;
    for (const s of [...this.init, ...this.main]) s.proc.signal('SIGKILL');
  }

  /** The node is back: containers start again (their restartCount grows) and the status is reported again. */
  found(): void {
    this.lost = false;
    this.lastReported = '';
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Graceful end: SIGTERM to every container, SIGKILL after `graceSeconds`; resolves once no process runs. */
  async terminate(graceSeconds: number): Promise<void> {
    this.terminating = true;
    const running = [...this.init, ...this.main].filter((s) => s.proc.running);
    for (const s of running) s.proc.signal('SIGTERM');
    const deadline = Date.now() + graceSeconds * 1000;
    while (running.some((s) => s.proc.running) && Date.now() < deadline) await sleep(100);
    for (const s of running) s.proc.signal('SIGKILL');
    while (running.some((s) => s.proc.running)) await sleep(50);
  }

  /** The status once terminated (every container's last run), reported before the kubelet removes the Pod. */
  async reportTerminated(): Promise<void> {
    for (const s of [...this.init, ...this.main]) s.finished = true;
    const wasLost = this.lost;
    this.lost = false;
    await this.report().catch(() => undefined);
    this.lost = wasLost;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function containerId(uid: string, slot: Slot): string {
  return `vigil-process://${uid}/${slot.spec.name}/${slot.proc.runs}`;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : SIGNALS[signal] ?? 0;
}

/** The host environment a container starts from: PATH and the like, without the test process's Kubernetes or Vigil settings. */
function hostEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(KUBECONFIG$|KUBERNETES_|VIGIL_)/.test(e[0])));
}

function inClusterKubeconfig(server: string, caFile: string, token: string, namespace: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'in-cluster',
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: 'in-cluster', user: { token } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'in-cluster', namespace } }],
  }, null, 2);
}
