// The archive job as stored and as answered: kinds, states, failure reasons.

export type JobKind = 'export' | 'timelapse';
export type JobState = 'pending' | 'running' | 'done' | 'failed';
export type FailureReason = 'no_recordings' | 'media_tool_failed' | 'peer_unreachable' | 'disk_full' | 'interrupted';

export interface AssemblePart {
  peer_addr: string;
  peer_job_id: string;
  ordinal: number;
}

export interface JobRecord {
  job_id: string;
  camera_id: string;
  /** Window, epoch seconds (for assemble: the span the caller named, 0 when unknown). */
  from: number;
  to: number;
  created_at: number;
  completed_at?: number;
  kind: JobKind;
  speed?: number;
  state: JobState;
  size_bytes?: number;
  reason?: FailureReason;
  /** Human detail of a failure (never carries credentials). */
  message?: string;
  /** 0 to 1, from the media tool's progress. */
  progress: number;
  /** Present for delegated assembly jobs. */
  parts?: AssemblePart[];
  /** Times the job was started; a job that never finishes across restarts fails as interrupted. */
  attempts: number;
  /** True once the result has been deleted after the retention time. */
  expired?: boolean;
}

/** A job cannot complete; `reason` is one of the documented failure reasons. */
export class JobFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** The job as the status endpoint answers it (spec section 2, plus progress). */
export function publicJob(job: JobRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    job_id: job.job_id,
    camera_id: job.camera_id,
    from: job.from,
    to: job.to,
    created_at: job.created_at,
    kind: job.kind,
    state: job.state,
    progress: job.progress,
  };
  if (job.completed_at !== undefined) out['completed_at'] = job.completed_at;
  if (job.speed !== undefined) out['speed'] = job.speed;
  if (job.state === 'done' && job.size_bytes !== undefined) out['size_bytes'] = job.size_bytes;
  if (job.state === 'failed') {
    out['reason'] = job.reason ?? 'media_tool_failed';
    if (job.message !== undefined) out['message'] = job.message;
  }
  if (job.expired === true) out['expired'] = true;
  return out;
}
