// Builds the pino logger: JSON lines on stdout (and log_file), with credentials scrubbed from every line.
import { pino, type Logger, type DestinationStream } from 'pino';
import { redactText } from '../util/redact.js';

export type { Logger };

export interface LoggerOptions {
  level: string;
  logFile?: string;
  /** Literal secrets (camera passwords) scrubbed from every line as a last line of defence. */
  secrets?: () => Iterable<string>;
  destination?: DestinationStream;
}

export function createLogger(opts: LoggerOptions): Logger {
  const streams: pino.StreamEntry[] = [{ stream: opts.destination ?? pino.destination({ dest: 1, sync: false }) }];
  if (opts.logFile !== undefined) {
    streams.push({ stream: pino.destination({ dest: opts.logFile, mkdir: true, sync: false }) });
  }
  const secrets = opts.secrets ?? (() => []);
  return pino(
    {
      level: opts.level,
      base: { service: 'vigil-recorder' },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: {
        streamWrite: (line: string) => redactText(line, secrets()),
      },
    },
    pino.multistream(streams),
  );
}
