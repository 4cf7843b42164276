// The status a kubelet reports for a Pod: phase, conditions (with their transition times), container statuses with
// state, lastState and restartCount, and the Pod's addresses (every Pod here is on loopback).
import type { V1ContainerState, V1ContainerStatus, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

/** One container as the worker sees it. */
export interface ContainerView {
  name: string;
  image: string;
  state: V1ContainerState;
  lastState: V1ContainerState;
  restartCount: number;
  ready: boolean;
  started: boolean;
  containerID: string;
}

export interface PodView {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  startTime: Date;
  /** Volumes made and the Pod's sandbox set up. */
  sandboxReady: boolean;
  initialized: boolean;
  init: ContainerView[];
  containers: ContainerView[];
}

function status(view: ContainerView): V1ContainerStatus {
  return {
    name: view.name, image: view.image, imageID: view.image === '' ? '' : `vigil-process://${view.image}`,
    ...(view.containerID === '' ? {} : { containerID: view.containerID }),
    ready: view.ready, started: view.started, restartCount: view.restartCount, state: view.state, lastState: view.lastState,
  };
}

/** The status body; `previous` (the Pod's current status) keeps each condition's lastTransitionTime while it holds. */
export function podStatus(view: PodView, previous: V1PodStatus | undefined): V1PodStatus {
  const containersReady = view.containers.length > 0 && view.containers.every((c) => c.ready);
  const notReady = view.containers.filter((c) => !c.ready).map((c) => c.name);
  const condition = (type: string, ok: boolean, reason?: string, message?: string): V1PodCondition => {
    const flag = ok ? 'True' : 'False';
    const before = previous?.conditions?.find((c) => c.type === type);
    // A Date either way (a listed Pod carries Dates, a watched one the API's strings): the same time makes the same status.
    return {
      type, status: flag, lastTransitionTime: before?.status === flag && before.lastTransitionTime !== undefined ? new Date(before.lastTransitionTime) : new Date(Math.floor(Date.now() / 1000) * 1000),
      ...(ok || reason === undefined ? {} : { reason, message }),
    };
  };
  const pendingInit = view.init.filter((c) => c.state.terminated?.exitCode !== 0).map((c) => c.name);
  return {
    phase: view.phase,
    conditions: [
      condition('PodReadyToStartContainers', view.sandboxReady),
      condition('Initialized', view.initialized, 'ContainersNotInitialized', `containers with incomplete status: [${pendingInit.join(' ')}]`),
      condition('Ready', containersReady, 'ContainersNotReady', `containers with unready status: [${notReady.join(' ')}]`),
      condition('ContainersReady', containersReady, 'ContainersNotReady', `containers with unready status: [${notReady.join(' ')}]`),
      condition('PodScheduled', true),
    ],
    hostIP: '127.0.0.1', hostIPs: [{ ip: '127.0.0.1' }],
    ...(view.sandboxReady ? { podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } : {}),
    startTime: view.startTime,
    ...(view.init.length > 0 ? { initContainerStatuses: view.init.map(status) } : {}),
    containerStatuses: view.containers.map(status),
    qosClass: previous?.qosClass ?? 'BestEffort',
  };
}

/** A comparable form of a status (what changed since the last report). */
export function statusKey(s: V1PodStatus): string {
  return JSON.stringify(s, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
}

export function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}
