// kube-apiserver's audit log read back: the write requests each user made in a window, to hold the operator and the
// recorders to a write budget in steady state.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** One request as the audit log has it (reads and writes alike). */
export interface AuditedWrite {
  user: string;
  verb: string;
  /** resource[/subresource] namespace/name, e.g. "leases coordination.k8s.io vigil/vigil-node-node-a". */
  target: string;
  code: number;
  at: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  userAgent?: string;
}

/** The log's lines one at a time: at 200 nodes it grows past what one string can hold. */
async function* auditLines(auditLogPath: string): AsyncGenerator<string> {
  const input = createReadStream(auditLogPath, 'utf8');
  try {
    yield* createInterface({ input, crlfDelay: Infinity });
  } finally {
    input.destroy();
  }
}

/** Every write answered between `fromMs` and `toMs` (epoch milliseconds), in the order the log has them. */
export async function auditedWrites(auditLogPath: string, fromMs: number, toMs: number): Promise<AuditedWrite[]> {
  return (await auditedRequests(auditLogPath, fromMs, toMs)).filter((r) => WRITE_VERBS.has(r.verb));
}

/** One line of the log as a request, when it is a request's answer (stage ResponseComplete). */
function answeredRequest(line: string): AuditedWrite | undefined {
  if (line === '') return undefined;
  const ev = JSON.parse(line) as AuditEvent;
  if (ev.stage !== 'ResponseComplete') return undefined;
  const ref = ev.objectRef ?? {};
  const resource = ref.subresource === undefined ? ref.resource : `${ref.resource}/${ref.subresource}`;
  return {
    user: ev.user?.username ?? '',
    verb: ev.verb ?? '',
    target: `${resource ?? '?'} ${ref.apiGroup ?? ''} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name ?? ''}`.replace(/ {2}/, ' '),
    code: ev.responseStatus?.code ?? 0,
    at: Date.parse(ev.requestReceivedTimestamp ?? ''),
  };
}

/** Every request (reads too) answered between `fromMs` and `toMs` (epoch milliseconds), in the order the log has them. */
export async function auditedRequests(auditLogPath: string, fromMs: number, toMs: number): Promise<AuditedWrite[]> {
  const writes: AuditedWrite[] = [];
  for await (const line of auditLines(auditLogPath)) {
    const request = answeredRequest(line);
    if (request !== undefined && request.at >= fromMs && request.at < toMs) writes.push(request);
  }
  return writes;
}

/**
 * The log read on from where the last read ended: for a wait that looks at the newest writes again and again, without
 * reading and parsing the whole log each time (at 200 nodes, hundreds of MB).
 */
export class AuditLogTail {
  private constructor(private readonly path: string, private offset: number) {}

  /** A tail whose first read returns what is written after now. */
  static async fromEnd(auditLogPath: string): Promise<AuditLogTail> {
    return new AuditLogTail(auditLogPath, (await stat(auditLogPath)).size);
  }

  /** The writes whose lines were completed since the last read. */
  async newWrites(): Promise<AuditedWrite[]> {
    const file = await open(this.path, 'r');
    try {
      const { size } = await file.stat();
      if (size <= this.offset) return [];
      const chunk = Buffer.alloc(size - this.offset);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, this.offset);
      // Only whole lines: a line still being written is read next time.
      const end = chunk.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      this.offset += end;
      return chunk.subarray(0, end).toString('utf8').split('\n').flatMap((line) => {
        const request = answeredRequest(line);
        return request !== undefined && WRITE_VERBS.has(request.verb) ? [request] : [];
      });
    } finally {
      await file.close();
    }
  }
}

/** Writes grouped by user and target: "user: verb target" → count. */
export function countWrites(writes: readonly AuditedWrite[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of writes) {
    const key = `${w.user}: ${w.verb} ${w.target}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether kube-controller-manager's garbage collector watches `resource` yet. It finds the resources of a new CRD only by
 * discovery, every 30 s; until then it neither sees such an object deleted nor removes what that object owns. Its
 * watches come through the shared metadata informers, whose user agent ends in "/metadata-informers".
 */
export async function garbageCollectorWatches(auditLogPath: string, resource: string): Promise<boolean> {
  for await (const line of auditLines(auditLogPath)) {
    if (line === '' || !line.includes('metadata-informers')) continue;
    const ev = JSON.parse(line) as AuditEvent;
    if (ev.verb === 'watch' && ev.objectRef?.resource === resource && (ev.userAgent ?? '').endsWith('/metadata-informers')) return true;
  }
  return false;
}
