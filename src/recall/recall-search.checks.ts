import { BadUserInputError } from '../common/errors/app-error';
import { isStorableText } from '../common/text/storable-text';

const MAX_RECALL_MEMORY_RESULTS = 50;
const MAX_SEARCH_QUERY_CHARS = 1000;
const DAY_MS = 86_400_000;

export interface RecallMemoryArgs {
  spaceId: string;
  query: string;
  conversationId?: string | null;
  toolName?: string | null;
  sinceDays?: number | null;
  limit: number;
}

/** recallMemory's bounds, checked before any SQL (R-OP-5); returns the `since` time, if any. */
export function checkRecallMemory(args: RecallMemoryArgs, now: Date): { since: Date | null } {
  if (args.query.trim().length === 0 || args.query.length > MAX_SEARCH_QUERY_CHARS) {
    throw new BadUserInputError('query', `query must hold a word and be at most ${MAX_SEARCH_QUERY_CHARS} characters.`);
  }
  if (!isStorableText(args.query))
    throw new BadUserInputError('query', 'query contains a NUL character or an unpaired surrogate; remove it.');
  if (args.toolName && !isStorableText(args.toolName))
    throw new BadUserInputError('toolName', 'toolName contains a NUL character or an unpaired surrogate; remove it.');
  if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_RECALL_MEMORY_RESULTS) {
    throw new BadUserInputError('limit', `limit must be between 1 and ${MAX_RECALL_MEMORY_RESULTS}.`);
  }
  if (args.toolName !== null && args.toolName !== undefined && (args.toolName.length === 0 || args.toolName.length > 128)) {
    throw new BadUserInputError('toolName', 'toolName must be 1 to 128 characters.');
  }
  if (args.sinceDays === null || args.sinceDays === undefined) return { since: null };
  if (!Number.isInteger(args.sinceDays) || args.sinceDays < 1 || args.sinceDays > 3650) {
    throw new BadUserInputError('sinceDays', 'sinceDays must be a whole number of days from 1 to 3650.');
  }
  return { since: new Date(now.getTime() - args.sinceDays * DAY_MS) };
}
