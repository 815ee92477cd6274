import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config/app-config';
import { currentRequestId } from './request-context';
import { traceFields } from './tracing';

/**
 * What an error may bring into a log line: its kind, code, message and stack, and the names of the
 * database objects involved. A driver error also carries `detail`, `where`, `hint`… — PostgreSQL's
 * "Failing row contains (…)" is the row, payload included — so nothing but these keys is kept.
 */
const ERROR_KEYS = ['type', 'message', 'stack', 'code', 'severity', 'schema', 'table', 'column', 'constraint', 'routine'];

export function loggableError(error: unknown): Record<string, unknown> {
  // pino's serializer folds the causes' messages and stacks into the error's own.
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (serialized === null || typeof serialized !== 'object') return { message: String(error) };
  const kept: Record<string, unknown> = Object.fromEntries(
    ERROR_KEYS.filter((key) => key in serialized).map((key) => [key, serialized[key]]),
  );
  return kept;
}

/** JSON logs; every line made while serving a request carries its request id, and its trace's ids when traced. */
export function createRootLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'recall-ledger' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const requestId = currentRequestId();
      const traced = traceFields();
      return { ...(requestId ? { requestId } : {}), ...traced };
    },
    serializers: { err: loggableError },
    // Tokens must never reach a log line, whatever a caller passes in.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization'], censor: '[redacted]' },
  });
}

/** Nest's message argument: text, or structured fields (with `msg`) passed by our own code. */
function entry(message: unknown, fields: Record<string, unknown>): [Record<string, unknown>, string | undefined] {
  if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
    const { msg, ...rest } = message as Record<string, unknown>;
    return [{ ...fields, ...rest }, typeof msg === 'string' ? msg : undefined];
  }
  if (message instanceof Error) return [{ ...fields, err: message }, message.message];
  return [fields, String(message)];
}

/** Nest's logger interface over pino, so framework messages are JSON too. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info(...entry(message, { context }));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error(...entry(message, { context, trace }));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn(...entry(message, { context }));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug(...entry(message, { context }));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace(...entry(message, { context }));
  }
}
