// POST export / timelapse / assemble: validate, then hand the job to the queue (202 with where to follow it).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AssemblePart, JobKind, JobRecord } from '../../jobs/job-record.js';
import type { TokenAuthenticator } from '../auth.js';
import { integerFromText } from '../../util/integer-text.js';
import { jobWindow } from '../window-query.js';
import { ApiError } from '../error-catalogue.js';
import { cameraIdParam, errorResponse } from '../schemas.js';

export interface JobSubmission {
  camera_id: string;
  from: number;
  to: number;
  kind: JobKind;
  speed?: number;
  parts?: AssemblePart[];
}

/** What the job routes need from the jobs service. */
export interface JobsService {
  mediaToolAvailable(): Promise<boolean>;
  submit(spec: JobSubmission): Promise<JobRecord>;
  get(jobId: string): JobRecord | undefined;
  isExpired(job: JobRecord): Promise<boolean>;
  resultPath(jobId: string): string;
  /** peer_addr values a node may fetch parts from (no arbitrary hosts). */
  isKnownPeer(peerAddr: string): boolean;
}

export interface JobRouteOptions {
  auth: TokenAuthenticator;
  jobs: JobsService;
}

const submitted = z.object({ job_id: z.string(), status_url: z.string(), download_url: z.string() });
const bounds = z.object({ from: z.string().optional(), to: z.string().optional(), speed: z.string().optional() });

/** Export and time-lapse take their window in the query; a body (even `{}`) is a client mistake, not something to ignore. */
function refuseBody(headers: Record<string, string | string[] | undefined>, kind: string): void {
  const length = headers['content-length'];
  if ((length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined) {
    throw new ApiError('bad_request', `${kind} takes no body: from, to${kind === 'timelapse' ? ' and speed' : ''} go in the query string`);
  }
}

function accepted(job: JobRecord): z.infer<typeof submitted> {
  return { job_id: job.job_id, status_url: `/api/archive/jobs/${job.job_id}`, download_url: `/api/archive/jobs/${job.job_id}/download` };
}

const assembleBody = z
  .object({
    kind: z.enum(['export', 'timelapse']),
    speed: z.number().optional(),
    from: z.number().int().optional(),
    to: z.number().int().optional(),
    parts: z
      .array(z.object({ peer_addr: z.string().min(1).max(300), peer_job_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), ordinal: z.number().int().min(0) }).strict())
      .min(1)
      .max(64),
  })
  .strict();

export const archiveJobRoutes: FastifyPluginAsyncZod<JobRouteOptions> = async (app, opts) => {
  const { jobs, auth } = opts;
  const needTool = async (): Promise<void> => {
    if (!(await jobs.mediaToolAvailable())) throw new ApiError('media_tool_missing');
  };
  const speedOf = (raw: string | number | undefined): number => {
    const speed = typeof raw === 'number' ? raw : raw === undefined ? NaN : (integerFromText(raw) ?? NaN);
    if (!Number.isInteger(speed) || speed < 2 || speed > 120) throw new ApiError('invalid_speed', `speed must be an integer from 2 to 120, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`, { parameter: 'speed' });
    return speed;
  };

  for (const kind of ['export', 'timelapse'] as const) {
    app.post(
      `/api/archive/:camera_id/${kind}`,
      {
        schema: { params: cameraIdParam, querystring: bounds, response: { 202: submitted, 400: errorResponse, 413: errorResponse, 503: errorResponse } },
        // The archive page submits exports to the node holding the files, which may be another origin.
        config: { crossOrigin: true },
        onRequest: async (req) => {
          auth.require(req, 'operator');
          refuseBody(req.headers, kind);
        },
      },
      async (req, reply) => {
        const { from, to } = jobWindow(req.query);
        const speed = kind === 'timelapse' ? speedOf(req.query.speed) : undefined;
        await needTool();
        const job = await jobs.submit({ camera_id: req.params.camera_id, from, to, kind, ...(speed === undefined ? {} : { speed }) });
        return reply.status(202).send(accepted(job));
      },
    );
  }

  app.post(
    '/api/archive/:camera_id/assemble',
    {
      schema: { params: cameraIdParam, body: assembleBody, response: { 202: submitted, 400: errorResponse, 503: errorResponse } },
      onRequest: async (req) => void auth.requireOrCluster(req, 'operator'),
    },
    async (req, reply) => {
      const body = req.body;
      const speed = body.kind === 'timelapse' ? speedOf(body.speed) : undefined;
      const unknown = body.parts.find((p) => !jobs.isKnownPeer(p.peer_addr));
      if (unknown !== undefined) throw new ApiError('unknown_peer', `peer_addr ${JSON.stringify(unknown.peer_addr.slice(0, 100))} is not a known cluster peer`, { parameter: 'parts' });
      const ordinals = new Set(body.parts.map((p) => p.ordinal));
      if (ordinals.size !== body.parts.length) throw new ApiError('bad_request', 'parts must have distinct ordinals', { parameter: 'parts' });
      await needTool();
      const job = await jobs.submit({
        camera_id: req.params.camera_id,
        from: body.from ?? 0,
        to: body.to ?? 0,
        kind: body.kind,
        ...(speed === undefined ? {} : { speed }),
        parts: body.parts,
      });
      return reply.status(202).send(accepted(job));
    },
  );
};
