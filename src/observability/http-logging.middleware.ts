import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { currentRequestId } from './request-context';

/** One access-log line per request: method, path, status, time. No headers, no bodies. */
export function httpLoggingMiddleware(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => currentRequestId() ?? String(res.getHeader('x-request-id') ?? ''),
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' },
  });
}
