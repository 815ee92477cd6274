import { BadUserInputError } from '../common/errors/app-error';

const MAX_PRIOR_RESULTS = 100;
const DAY_MS = 86_400_000;

/** Checks priorToolResults' bounds before any SQL; returns the `since` time, if any. */
export function checkPriorQuery(limit: number, sinceDays: number | null | undefined, now: Date): Date | null {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PRIOR_RESULTS) {
    throw new BadUserInputError('limit', `limit must be between 1 and ${MAX_PRIOR_RESULTS}.`);
  }
  if (sinceDays === null || sinceDays === undefined) return null;
  if (!Number.isInteger(sinceDays) || sinceDays < 1 || sinceDays > 3650) {
    throw new BadUserInputError('sinceDays', 'sinceDays must be a whole number of days from 1 to 3650.');
  }
  return new Date(now.getTime() - sinceDays * DAY_MS);
}
