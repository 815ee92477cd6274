import { BadUserInputError } from '../errors/app-error';
import { UUID_PATTERN as UUID } from '../uuid-pattern';

/** A position in a (created_at, id) ordering. `createdAt` keeps PostgreSQL's microseconds. */
export interface KeysetPosition {
  createdAt: string;
  id: string;
}

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque to clients; base64url of the position. */
export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

/** `idPattern`: what the ordering's ids look like (UUIDs unless the caller pages other ids). */
export function decodeCursor(cursor: string, field = 'after', idPattern: RegExp = UUID): KeysetPosition {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2) {
      const [createdAt, id] = parsed as unknown[];
      if (typeof createdAt === 'string' && isInstant(createdAt) && typeof id === 'string' && idPattern.test(id)) return { createdAt, id };
    }
  } catch {
    // fall through to the error below
  }
  throw new BadUserInputError(field, `${field} is not a cursor this API returned; pass an endCursor from a previous page.`);
}

/**
 * The shape, and a date and time that exist (no 2026-02-30, no 24:00, no year 0): PostgreSQL
 * refuses those, which would turn a client's bad cursor into an internal error.
 */
function isInstant(createdAt: string): boolean {
  if (!ISO_MICROS.test(createdAt) || createdAt.startsWith('0000')) return false;
  const millis = `${createdAt.slice(0, 23)}Z`;
  const parsed = new Date(millis);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === millis;
}

const MAX_PAGE_SIZE = 100;

export function checkPageSize(first: number, field = 'first'): number {
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw new BadUserInputError(field, `${field} must be between 1 and ${MAX_PAGE_SIZE}.`);
  }
  return first;
}
