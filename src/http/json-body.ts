import { JSONParser } from '@streamparser/json';
import { json, raw, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { JsonStructureScan, MAX_BODY_NESTING, refuseDeepNesting, tooDeepError } from './json-nesting';

/**
 * A body sent whole (its length declared) and uncompressed, at most this long, is parsed at once
 * by JSON.parse: well under a millisecond.
 */
const PARSED_AT_ONCE_MAX_BYTES = 64 * 1024;

/**
 * A longer body with at most this much structure (brackets, commas and colons outside strings) is
 * also parsed at once: JSON.parse's cost is then its string bytes (about 1.3 ms a MB here, 13 ms at
 * the 10 MB limit) plus ~60 ns a structural byte (4 ms at this bound). With more, building its
 * objects would hold the event loop for seconds (3.5 million `{}` in 10 MB: 1.4 s), so it is
 * parsed in slices instead.
 */
export const PARSED_AT_ONCE_MAX_STRUCTURE = 65_536;

/** Bytes the structure scan reads between two turns of the event loop (about 1 ms). */
const SCAN_SLICE_BYTES = 512 * 1024;

/** Bytes the sliced parser reads between two turns of the event loop (a few ms at most). */
const PARSE_SLICE_BYTES = 32 * 1024;

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The 400 body-parser gives a body that is not JSON; `body` (short ones only) lets the edge name the position. */
function notJson(message: string, body?: string): Error {
  return Object.assign(new SyntaxError(message), { status: 400, expose: true, type: 'entity.parse.failed', body });
}

/** The offset of the first byte that is not JSON whitespace, or the length. */
function firstNonWhitespace(body: Uint8Array): number {
  let at = 0;
  while (at < body.length && WHITESPACE.has(body[at])) at++;
  return at;
}

/**
 * Reads a body's structure in slices (refusing deep nesting as it goes), then parses it: at once
 * when that is cheap, else with a streaming parser fed a slice per turn of the event loop, so no
 * body holds the loop for more than a few milliseconds at a time, whatever its shape (R-TN-10).
 */
export async function parseJsonBody(body: Buffer): Promise<unknown> {
  // body-parser's answer for an empty body, kept.
  if (body.length === 0) return {};
  const first = firstNonWhitespace(body);
  // body-parser's strict mode: only an object or an array.
  if (body[first] !== 0x7b && body[first] !== 0x5b) {
    throw notJson(`Unexpected character at position ${first}: a JSON object or array is expected`);
  }
  const scan = new JsonStructureScan(MAX_BODY_NESTING);
  for (let from = 0; from < body.length; from += SCAN_SLICE_BYTES) {
    const at = scan.scan(body, from, Math.min(body.length, from + SCAN_SLICE_BYTES));
    if (at !== null) throw tooDeepError(at);
    await nextTurn();
  }
  if (scan.structure <= PARSED_AT_ONCE_MAX_STRUCTURE) return parseAtOnce(body);
  return parseInSlices(body);
}

function parseAtOnce(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw notJson((error as Error).message, text.length <= PARSED_AT_ONCE_MAX_BYTES ? text : undefined);
  }
}

async function parseInSlices(body: Buffer): Promise<unknown> {
  const parser = new JSONParser({ paths: ['$'], keepStack: false, stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  let root: unknown;
  let failure: Error | undefined;
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) root = value;
  };
  parser.onError = (error) => (failure ??= error);
  for (let from = 0; from < body.length; from += PARSE_SLICE_BYTES) {
    parser.write(body.subarray(from, Math.min(body.length, from + PARSE_SLICE_BYTES)));
    if (failure !== undefined) throw notJson(positioned(failure, from));
    await nextTurn();
  }
  if (!parser.isEnded) parser.end();
  if (failure !== undefined) throw notJson(positioned(failure, body.length));
  return root;
}

/** The parser's message with the byte offset where it stopped: its own, or the slice's start. */
function positioned(error: Error, sliceStart: number): string {
  const absolute = /absolute position "(\d+)"/.exec(error.message);
  const reason = error.message.replace(/ at chunk position .*? in state/, ' in state');
  return absolute ? `${reason} (at position ${absolute[1]})` : `${reason} (in the bytes from position ${sliceStart})`;
}

/** Whether a request's body is declared short and sent uncompressed: then body-parser reads and parses it in one go. */
function shortAndPlain(req: Request): boolean {
  const declared = req.headers['content-length'];
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  return declared !== undefined && Number(declared) <= PARSED_AT_ONCE_MAX_BYTES && encoding === 'identity';
}

/** UTF-8 (or no charset named): the sliced parser reads UTF-8 bytes; body-parser keeps any other charset it knows. */
function utf8(req: Request): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

/**
 * The API's JSON body parser. Short plain bodies (and other charsets) take body-parser's `json`
 * with the nesting check before its JSON.parse; any other body is read whole by body-parser's
 * `raw` (the same limit, decompression and errors) and parsed by {@link parseJsonBody}.
 */
export function jsonBodyParser(limit: string, mayRead: (req: Request) => boolean): RequestHandler {
  const type = (req: unknown) => mayRead(req as Request);
  const atOnce = json({ limit, type, verify: refuseDeepNesting });
  const whole = raw({ limit, type });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!mayRead(req) || shortAndPlain(req) || !utf8(req)) {
      atOnce(req, res, next);
      return;
    }
    whole(req, res, (error?: unknown) => {
      if (error !== undefined || !Buffer.isBuffer(req.body)) {
        next(error);
        return;
      }
      parseJsonBody(req.body).then((value) => {
        req.body = value;
        next();
      }, next);
    });
  };
}
