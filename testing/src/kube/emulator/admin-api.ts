// The emulator's own HTTP API under /emulator/ (admin token only): fault injection, fake-kubelet knobs and ServiceAccount tokens for the binary's users.
import { badRequest, pathNotFound } from './status-errors.js';
import { isRecord } from './types.js';
import type { KubeEmulatorFaults, KubeEmulatorKubelet } from './instance.js';

/** What the admin API drives: the emulator's faults and fake kubelet, token issuing and statistics. */
export interface AdminControls extends KubeEmulatorFaults, KubeEmulatorKubelet {
  issueServiceAccountToken(namespace: string, name: string): Promise<string>;
  stats(): Record<string, unknown>;
}

function str(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw badRequest(`"${key}" (a non-empty string) is required`);
  return v;
}

function optionalNumber(body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`"${key}" must be a number`);
  return v;
}

/** Answers one /emulator/... request; the body is already parsed JSON (or undefined). */
export async function handleAdmin(controls: AdminControls, method: string, path: string, rawBody: unknown): Promise<unknown> {
  const body = isRecord(rawBody) ? rawBody : {};
  if (method === 'GET' && path === '/emulator/stats') return controls.stats();
  if (method !== 'POST') throw pathNotFound();
  switch (path) {
    case '/emulator/faults/cut-off': {
      const mode = body.mode ?? 'refuse';
      if (mode !== 'refuse' && mode !== 'hang') throw badRequest('"mode" must be "refuse" or "hang"');
      controls.cutOff(str(body, 'token'), mode);
      break;
    }
    case '/emulator/faults/restore': controls.restore(str(body, 'token')); break;
    case '/emulator/faults/latency': controls.setLatency(optionalNumber(body, 'ms') ?? 0); break;
    case '/emulator/faults/fail-requests': {
      const status = optionalNumber(body, 'status');
      const count = optionalNumber(body, 'count');
      const forMs = optionalNumber(body, 'forMs');
      controls.failRequests({
        ...(status !== undefined ? { status } : {}),
        ...(count !== undefined ? { count } : {}),
        ...(forMs !== undefined ? { forMs } : {}),
        ...(typeof body.token === 'string' ? { token: body.token } : {}),
      });
      break;
    }
    case '/emulator/faults/clear-failures': controls.clearFailures(); break;
    case '/emulator/faults/drop-watches': controls.dropWatches(); break;
    case '/emulator/faults/compact-history': controls.compactHistory(); break;
    case '/emulator/faults/reset': controls.reset(); break;
    case '/emulator/kubelet/pod-readiness': {
      const url = body.url;
      if (url !== undefined && url !== null && typeof url !== 'string') throw badRequest('"url" must be a string or null');
      controls.setPodReadinessUrl(str(body, 'namespace'), str(body, 'pod'), typeof url === 'string' ? url : undefined);
      break;
    }
    case '/emulator/kubelet/node-ready': {
      if (typeof body.ready !== 'boolean') throw badRequest('"ready" (a boolean) is required');
      controls.setNodeReady(str(body, 'node'), body.ready);
      break;
    }
    case '/emulator/tokens':
      return { token: await controls.issueServiceAccountToken(str(body, 'namespace'), str(body, 'serviceAccount')) };
    default:
      throw pathNotFound();
  }
  return { ok: true };
}
