import { isStorableText } from '../../common/text/storable-text';

/* The dotted path of a lookup's `jsonPath` (`items.3.price`): the one parser of that form. RFC 9535 queries are rfc9535-query.ts's. */

const MAX_SEGMENTS = 64;
const MAX_SEGMENT_CHARS = 256;

/**
 * `items.3.price` → `['items', '3', 'price']`, the text array PostgreSQL's `#>` takes. Null for an
 * empty or malformed path, so the caller answers with a bracketed text instead of querying; a NUL
 * or an unpaired surrogate is malformed too, as PostgreSQL text cannot hold it.
 */
export function parseDottedPath(path: string): string[] | null {
  if (path.length === 0) return null;
  const segments = path.split('.');
  if (segments.length > MAX_SEGMENTS) return null;
  const valid = segments.every((segment) => segment.length > 0 && segment.length <= MAX_SEGMENT_CHARS);
  return valid && isStorableText(path) ? segments : null;
}
