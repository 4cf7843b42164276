// GET /api/archive/jobs/{job_id} and …/download: the job record, and its result with Range support.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicJob, type JobRecord } from '../../jobs/job-record.js';
import { compactUtc } from '../../util/iso-time.js';
import { ApiError, errorBody } from '../error-catalogue.js';
import { parseByteRange } from '../byte-range.js';
import { errorResponse } from '../schemas.js';
import type { JobRouteOptions } from './archive-jobs.js';

const jobParam = z.object({ job_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'is not a job id' }) });

export function resultFileName(job: JobRecord): string {
  const kind = job.kind === 'timelapse' ? `_timelapse-x${job.speed ?? ''}` : '';
  const window = job.from > 0 && job.to > 0 ? `_${compactUtc(new Date(job.from * 1000))}-${compactUtc(new Date(job.to * 1000))}` : `_${job.job_id}`;
  return `${job.camera_id}${window}${kind}.mp4`;
}

export const jobStatusRoutes: FastifyPluginAsyncZod<JobRouteOptions> = async (app, opts) => {
  const { jobs, auth } = opts;
  const find = (id: string): JobRecord => {
    const job = jobs.get(id);
    if (job === undefined) throw new ApiError('job_not_found', `no job ${id} on this node`);
    return job;
  };

  app.get(
    '/api/archive/jobs/:job_id',
    {
      schema: { params: jobParam, response: { 200: z.record(z.string(), z.unknown()), 404: errorResponse } },
      config: { crossOrigin: true },
      onRequest: async (req) => void auth.requireOrCluster(req, 'viewer'),
    },
    async (req) => publicJob(find(req.params.job_id)),
  );

  app.get(
    '/api/archive/jobs/:job_id/download',
    {
      schema: {
        params: jobParam,
        querystring: z.object({ download: z.string().optional(), ticket: z.string().optional() }),
      },
      config: { crossOrigin: true },
      // A node fetching an assembly part presents the cluster token; a browser's download link a ticket for the job.
      onRequest: async (req) => void (auth.isCluster(req) ? auth.requireOrCluster(req, 'viewer') : auth.requireOrTicket(req, 'viewer', { purpose: 'download', job: (req.params as { job_id: string }).job_id })),
    },
    async (req, reply) => {
      const job = find(req.params.job_id);
      if (job.state === 'pending' || job.state === 'running') {
        return reply.status(202).header('Retry-After', '2').send({ job_id: job.job_id, state: job.state, progress: job.progress });
      }
      if (job.state === 'failed') throw new ApiError('job_failed', `the job failed (${job.reason ?? 'media_tool_failed'}); there is nothing to download`, { reason: job.reason });
      if (await jobs.isExpired(job)) throw new ApiError('job_expired', 'the result was kept 1 hour after completion and has been deleted');
      const path = jobs.resultPath(job.job_id);
      const size = (await stat(path)).size;
      const range = parseByteRange(req.headers.range, size);
      if (range.kind === 'unsatisfiable') {
        return reply.status(416).header('Content-Range', `bytes */${size}`).send(errorBody('range_not_satisfiable', `the range is outside the ${size}-byte result`));
      }
      const disposition = req.query.download === '1' ? 'attachment' : 'inline';
      void reply
        .header('Content-Type', 'video/mp4')
        .header('Accept-Ranges', 'bytes')
        .header('Content-Disposition', `${disposition}; filename="${resultFileName(job)}"`)
        .header('Cache-Control', 'private, no-store');
      if (range.kind === 'range') {
        return reply
          .status(206)
          .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
          .header('Content-Length', String(range.end - range.start + 1))
          .send(createReadStream(path, { start: range.start, end: range.end }));
      }
      return reply.status(200).header('Content-Length', String(size)).send(createReadStream(path));
    },
  );
};
