// The operator's pino logger (JSON or readable lines on stdout), made once in main and passed down.
import { pino, type Logger } from 'pino';
import { prettyStdout, type LogFormat } from '@vigil/kube/log-format';

export function createLogger(level: string, identity: string, format: LogFormat = 'json'): Logger {
  const options = { level, base: { component: 'vigil-operator', identity } };
  return format === 'pretty' ? pino(options, prettyStdout(['identity'])) : pino(options);
}
