// How vigil-recorder's and vigil-operator's log lines reach stdout (--log-format): JSON lines (pino) for machines, or
// pino-pretty's one readable line per event — time, level, camera, message, then the other fields — for a person.
import type { DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Without --log-format: pretty when stdout is a terminal, JSON otherwise (journald, files, pipes, log collectors). */
export function defaultLogFormat(stdoutIsTerminal: boolean | undefined): LogFormat {
  return stdoutIsTerminal === true ? 'pretty' : 'json';
}

/** "camera: message: error", each part only when the line has it. */
export function readableMessage(line: Record<string, unknown>, messageKey: string): string {
  const camera = typeof line['camera'] === 'string' ? `${line['camera']}: ` : '';
  const err = line['err'];
  const reason = typeof err === 'string' ? err : typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string' ? (err as { message: string }).message : undefined;
  return `${camera}${String(line[messageKey] ?? '')}${reason === undefined ? '' : `: ${reason}`}`;
}

/**
 * The readable form, written to stdout. `ignore` drops fields every line carries (pid, hostname, the service name);
 * colours only on a terminal and without NO_COLOR. Synchronous: a person's terminal gets few lines, and none may be
 * lost when the process exits.
 */
export function prettyStdout(ignore: string[], env: NodeJS.ProcessEnv = process.env): DestinationStream {
  return pinoPretty({
    colorize: process.stdout.isTTY === true && env['NO_COLOR'] === undefined,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    // camera leads the message and err follows it (its message; the JSON form keeps the stack), so neither repeats.
    ignore: ['pid', 'hostname', 'camera', 'err', ...ignore].join(','),
    messageFormat: readableMessage,
    singleLine: true,
    destination: 1,
    sync: true,
  });
}
