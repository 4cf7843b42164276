// Builds the pino logger: JSON lines or readable lines on stdout (JSON always in log_file), with credentials scrubbed
// from every line before either form is written.
import { pino, type Logger, type DestinationStream } from 'pino';
import { redactText } from '../util/redact.js';
import { prettyStdout, type LogFormat } from '@vigil/kube/log-format';

export type { Logger };

export interface LoggerOptions {
  level: string;
  logFile?: string;
  /** Literal secrets (camera passwords) scrubbed from every line as a last line of defence. */
  secrets?: () => Iterable<string>;
  destination?: DestinationStream;
  /** What stdout gets (default json); log_file is always JSON. */
  format?: LogFormat;
}

export function createLogger(opts: LoggerOptions): Logger {
  const stdout = opts.destination ?? (opts.format === 'pretty' ? prettyStdout(['service']) : pino.destination({ dest: 1, sync: false }));
  const streams: pino.StreamEntry[] = [{ stream: stdout }];
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
