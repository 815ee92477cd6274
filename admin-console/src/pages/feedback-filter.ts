import type { FeedbackEventFilter, FeedbackQuality } from '../../../clients/typescript/src';

/** The list's filters as they stand in the page address (`#/feedback?quality=LOW&used=no`). */
export const FILTER_KEYS = ['quality', 'used', 'supported', 'missing', 'irrelevant', 'comment', 'tool', 'space', 'since', 'until'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const QUALITIES: readonly string[] = ['LOW', 'MEDIUM', 'HIGH'];

function flag(value: string | null): boolean | null {
  if (value === 'yes') return true;
  if (value === 'no') return false;
  return null;
}

/** A date input's `YYYY-MM-DD` as that UTC day's start; `until` takes the next day's start, so the day is included. */
function utcDay(value: string | null, nextDay: boolean): string | null {
  if (value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const day = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(day.getTime())) return null;
  if (nextDay) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString();
}

export function filterFromParams(params: URLSearchParams): FeedbackEventFilter {
  const quality = params.get('quality');
  return {
    quality: quality !== null && QUALITIES.includes(quality) ? (quality as FeedbackQuality) : null,
    used: flag(params.get('used')),
    answerSupported: flag(params.get('supported')),
    missingContext: flag(params.get('missing')),
    irrelevant: flag(params.get('irrelevant')),
    hasComment: flag(params.get('comment')),
    toolName: params.get('tool') || null,
    spaceId: params.get('space') || null,
    since: utcDay(params.get('since'), false),
    until: utcDay(params.get('until'), true),
  };
}
