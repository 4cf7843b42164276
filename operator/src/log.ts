// The operator's pino logger (JSON lines on stdout), made once in main and passed down.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, identity: string): Logger {
  return pino({ level, base: { component: 'vigil-operator', identity } });
}
