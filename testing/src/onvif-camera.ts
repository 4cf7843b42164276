// Test support: an ONVIF SOAP camera (device, media, PTZ services) that checks WS-Security UsernameToken digests and records PTZ calls.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface OnvifCameraOptions {
  user: string;
  password: string;
  /** `services` answers GetServices; `capabilities` faults it, so clients fall back to GetCapabilities. */
  discovery?: 'services' | 'capabilities';
  /** Answer this action with a SOAP fault carrying `reason`. */
  fault?: { action: string; reason: string };
  /** Listen on this port (a restart of the same camera); 0 by default. */
  port?: number;
}

export interface PtzVelocityCall {
  profileToken: string;
  x: number;
  y: number;
  zoom: number;
}

export interface OnvifCamera {
  readonly port: number;
  /** http://127.0.0.1:PORT, for the camera's `onvif` key. */
  readonly url: string;
  /** Every SOAP action received, in order, with whether its credentials were good. */
  readonly requests: Array<{ action: string; authorized: boolean }>;
  readonly moves: PtzVelocityCall[];
  readonly stops: Array<{ profileToken: string }>;
  close(): Promise<void>;
}

/** The profile without PTZ comes first: clients must pick the one that has it. */
export const PTZ_PROFILE = 'profile_ptz';

const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" ' +
  'xmlns:tds="http://www.onvif.org/ver10/device/wsdl" xmlns:trt="http://www.onvif.org/ver10/media/wsdl" ' +
  'xmlns:tptz="http://www.onvif.org/ver20/ptz/wsdl" xmlns:tt="http://www.onvif.org/ver10/schema" ' +
  'xmlns:ter="http://www.onvif.org/ver10/error"><SOAP-ENV:Body>';
const ENVELOPE_CLOSE = '</SOAP-ENV:Body></SOAP-ENV:Envelope>';
const ACTIONS = ['GetSystemDateAndTime', 'GetServices', 'GetCapabilities', 'GetProfiles', 'ContinuousMove', 'Stop'];

export async function startOnvifCamera(opts: OnvifCameraOptions): Promise<OnvifCamera> {
  const requests: OnvifCamera['requests'] = [];
  const moves: PtzVelocityCall[] = [];
  const stops: Array<{ profileToken: string }> = [];
  let base = '';
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const action = /<(?:\w+:)?Body[^>]*>\s*<(?:\w+:)?(\w+)/.exec(body)?.[1] ?? 'unknown';
    const authorized = checkUsernameToken(body, opts.user, opts.password);
    requests.push({ action, authorized });
    // ONVIF lets a client read the clock before it can authenticate (the token's Created depends on it).
    if (action !== 'GetSystemDateAndTime' && !authorized) return send(res, 400, fault('ter:NotAuthorized', 'Sender not authorized'));
    if (!ACTIONS.includes(action)) return send(res, 500, fault('ter:ActionNotSupported', `${action} is not supported`));
    if (opts.fault?.action === action) return send(res, 500, fault('ter:InvalidArgVal', opts.fault.reason));
    switch (action) {
      case 'GetSystemDateAndTime':
        return send(res, 200, dateTime(new Date()));
      case 'GetServices':
        if (opts.discovery === 'capabilities') return send(res, 500, fault('ter:ActionNotSupported', 'GetServices is not supported'));
        return send(res, 200, services(base));
      case 'GetCapabilities':
        return send(res, 200, capabilities(base));
      case 'GetProfiles':
        return send(res, 200, PROFILES);
      case 'ContinuousMove': {
        const num = (re: RegExp): number => Number(re.exec(body)?.[1] ?? Number.NaN);
        moves.push({
          profileToken: /<(?:\w+:)?ProfileToken>([^<]*)</.exec(body)?.[1] ?? '',
          x: num(/<(?:\w+:)?PanTilt[^>]*\bx="([^"]*)"/),
          y: num(/<(?:\w+:)?PanTilt[^>]*\by="([^"]*)"/),
          zoom: num(/<(?:\w+:)?Zoom[^>]*\bx="([^"]*)"/),
        });
        return send(res, 200, '<tptz:ContinuousMoveResponse/>');
      }
      case 'Stop':
        stops.push({ profileToken: /<(?:\w+:)?ProfileToken>([^<]*)</.exec(body)?.[1] ?? '' });
        return send(res, 200, '<tptz:StopResponse/>');
    }
  }
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('onvif camera: no TCP address');
  base = `http://127.0.0.1:${address.port}`;
  return {
    port: address.port,
    url: base,
    requests,
    moves,
    stops,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** WS-Security UsernameToken with PasswordDigest = Base64(SHA1(nonce + created + password)), Created within 5 minutes. */
function checkUsernameToken(body: string, user: string, password: string): boolean {
  const field = (name: string): string | undefined => new RegExp(`<(?:\\w+:)?${name}\\b[^>]*>([^<]*)</(?:\\w+:)?${name}>`).exec(body)?.[1];
  const username = field('Username');
  const digest = field('Password');
  const nonce = field('Nonce');
  const created = field('Created');
  if (username === undefined || digest === undefined || nonce === undefined || created === undefined) return false;
  if (!/PasswordDigest/.test(/<(?:\w+:)?Password\b[^>]*>/.exec(body)?.[0] ?? '')) return false;
  if (Math.abs(Date.parse(created) - Date.now()) > 5 * 60_000) return false;
  const expected = createHash('sha1')
    .update(Buffer.concat([Buffer.from(nonce, 'base64'), Buffer.from(created, 'utf8'), Buffer.from(password, 'utf8')]))
    .digest('base64');
  return username === user && digest === expected;
}

function send(res: ServerResponse, status: number, inner: string): void {
  res.writeHead(status, { 'content-type': 'application/soap+xml; charset=utf-8' });
  res.end(ENVELOPE_OPEN + inner + ENVELOPE_CLOSE);
}

function fault(subcode: string, reason: string): string {
  return (
    '<SOAP-ENV:Fault><SOAP-ENV:Code><SOAP-ENV:Value>SOAP-ENV:Sender</SOAP-ENV:Value>' +
    `<SOAP-ENV:Subcode><SOAP-ENV:Value>${subcode}</SOAP-ENV:Value></SOAP-ENV:Subcode></SOAP-ENV:Code>` +
    `<SOAP-ENV:Reason><SOAP-ENV:Text xml:lang="en">${reason}</SOAP-ENV:Text></SOAP-ENV:Reason></SOAP-ENV:Fault>`
  );
}

function dateTime(d: Date): string {
  return (
    '<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:DateTimeType>NTP</tt:DateTimeType>' +
    '<tt:DaylightSavings>false</tt:DaylightSavings><tt:UTCDateTime>' +
    `<tt:Time><tt:Hour>${d.getUTCHours()}</tt:Hour><tt:Minute>${d.getUTCMinutes()}</tt:Minute><tt:Second>${d.getUTCSeconds()}</tt:Second></tt:Time>` +
    `<tt:Date><tt:Year>${d.getUTCFullYear()}</tt:Year><tt:Month>${d.getUTCMonth() + 1}</tt:Month><tt:Day>${d.getUTCDate()}</tt:Day></tt:Date>` +
    '</tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>'
  );
}

function services(base: string): string {
  const svc = (ns: string, path: string): string =>
    `<tds:Service><tds:Namespace>${ns}</tds:Namespace><tds:XAddr>${base}${path}</tds:XAddr>` +
    '<tds:Version><tt:Major>2</tt:Major><tt:Minor>60</tt:Minor></tds:Version></tds:Service>';
  return (
    '<tds:GetServicesResponse>' +
    svc('http://www.onvif.org/ver10/device/wsdl', '/onvif/device_service') +
    svc('http://www.onvif.org/ver10/media/wsdl', '/onvif/media_service') +
    svc('http://www.onvif.org/ver20/ptz/wsdl', '/onvif/ptz_service') +
    '</tds:GetServicesResponse>'
  );
}

function capabilities(base: string): string {
  return (
    '<tds:GetCapabilitiesResponse><tds:Capabilities>' +
    `<tt:Device><tt:XAddr>${base}/onvif/device_service</tt:XAddr></tt:Device>` +
    `<tt:Media><tt:XAddr>${base}/onvif/media_service</tt:XAddr></tt:Media>` +
    `<tt:PTZ><tt:XAddr>${base}/onvif/ptz_service</tt:XAddr></tt:PTZ>` +
    '</tds:Capabilities></tds:GetCapabilitiesResponse>'
  );
}

const PROFILES =
  '<trt:GetProfilesResponse>' +
  '<trt:Profiles token="profile_main" fixed="true"><tt:Name>main</tt:Name>' +
  '<tt:VideoSourceConfiguration token="vsc_1"><tt:Name>vs</tt:Name><tt:UseCount>2</tt:UseCount><tt:SourceToken>vs_1</tt:SourceToken>' +
  '<tt:Bounds x="0" y="0" width="1920" height="1080"/></tt:VideoSourceConfiguration></trt:Profiles>' +
  `<trt:Profiles token="${PTZ_PROFILE}" fixed="true"><tt:Name>ptz</tt:Name>` +
  '<tt:VideoSourceConfiguration token="vsc_1"><tt:Name>vs</tt:Name><tt:UseCount>2</tt:UseCount><tt:SourceToken>vs_1</tt:SourceToken>' +
  '<tt:Bounds x="0" y="0" width="1920" height="1080"/></tt:VideoSourceConfiguration>' +
  '<tt:PTZConfiguration token="ptz_cfg_1"><tt:Name>ptz</tt:Name><tt:UseCount>1</tt:UseCount><tt:NodeToken>ptz_node_1</tt:NodeToken></tt:PTZConfiguration>' +
  '</trt:Profiles></trt:GetProfilesResponse>';
