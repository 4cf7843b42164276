// The Camera resource (namespaced, `cam`): spec written by the user, status by the operator and the recording node (kubernetes.md §1–2).
import { z } from 'zod';
import { CAMERA_PHASES } from './constants.js';
import { conditionsSchema, timeSchema } from './condition.js';

/** `rtsp://` or `rtsps://`, a host, no whitespace. */
export const RTSP_URL_PATTERN = /^rtsps?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/;
export const HTTP_URL_PATTERN = /^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/;

const keySchema = z.string().min(1).max(253).regex(/^[-._a-zA-Z0-9]+$/);

export const credentialsSecretRefSchema = z
  .object({
    name: z.string().min(1).max(253).describe('Secret in the Camera\'s namespace holding the RTSP (and snapshot, ONVIF) credentials'),
    usernameKey: keySchema.default('username').describe('key of the user name in the Secret'),
    passwordKey: keySchema.default('password').describe('key of the password in the Secret'),
  })
  .strict();

export const cameraSpecSchema = z
  .object({
    source: z.string().max(2048).regex(RTSP_URL_PATTERN).describe('the stream: an rtsp:// or rtsps:// URL (credentials preferably through credentialsSecretRef)'),
    credentialsSecretRef: credentialsSecretRefSchema.optional(),
    snapuri: z.string().max(2048).regex(HTTP_URL_PATTERN).optional().describe('snapshot URL, http(s)'),
    ptz: z.boolean().default(false).describe('PTZ enabled'),
    onvif: z.string().max(2048).regex(HTTP_URL_PATTERN).optional().describe('ONVIF device service URL (default: the RTSP host, port 80)'),
    audio: z.enum(['auto', 'off', 'transcode']).default('auto').describe('audio handling'),
    rtspTransport: z.enum(['tcp', 'udp']).optional().describe('pins how RTP travels: over the RTSP connection (tcp) or over UDP; unset = automatic (TCP first, UDP when the camera refuses TCP; what worked is remembered)'),
    ingest: z.enum(['native', 'ffmpeg']).optional().describe('how the recorder reads the stream: native, or one ffmpeg per camera (default: the recorder configuration\'s)'),
    record: z
      .object({
        format: z.enum(['fmp4', 'mp4']).optional().describe('default: the recorder configuration\'s'),
        segmentSeconds: z.number().int().min(1).max(3600).optional().describe('default: the recorder configuration\'s'),
        retention: z
          .object({
            maxAgeDays: z.number().int().min(1).max(36500).optional().describe('default: the recorder configuration\'s'),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    nodeName: z.string().min(1).max(253).optional().describe('pin: only this node may record the camera'),
    nodeSelector: z.record(z.string(), z.string()).optional().describe('only Kubernetes Nodes carrying all these labels may record the camera'),
  })
  .strict();

export const cameraStatusSchema = z
  .object({
    node: z.string().optional().describe('the node that records the camera now (empty while Pending)'),
    url: z.string().optional().describe('that node\'s internal base URL'),
    phase: z.enum(CAMERA_PHASES).optional(),
    conditions: conditionsSchema.optional(),
    observedGeneration: z.number().int().min(0).optional().describe('the metadata.generation the operator last acted on'),
    lastMoveTime: timeSchema.optional().describe('when the camera last changed node'),
    handoverFrom: z.string().nullable().optional().describe('during a planned move: the node still recording until the new one records'),
    recordingNode: z.string().optional().describe('the node that last reported Recording=True'),
  })
  .strict();

export type CredentialsSecretRef = z.infer<typeof credentialsSecretRefSchema>;
export type CameraSpec = z.infer<typeof cameraSpecSchema>;
/** The spec as written by a user, before the API server applied the defaults. */
export type CameraSpecInput = z.input<typeof cameraSpecSchema>;
export type CameraStatus = z.infer<typeof cameraStatusSchema>;
