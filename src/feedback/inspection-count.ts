/**
 * How far an inspection counts (R-FB-8): `totalCount` of `feedbackEvents` and `recallEvents` stops
 * here, so a count costs at most this many index entries however many events a team has.
 */
export const INSPECTION_COUNT_CAP = 10_000;

/** A bounded count: exact up to the cap; past it, the cap and `totalCountIsExact: false`. */
export interface InspectionCount {
  totalCount: number;
  totalCountIsExact: boolean;
}

/** The answer of a count that read at most `cap + 1` rows. */
export function boundedCount(counted: number, cap: number = INSPECTION_COUNT_CAP): InspectionCount {
  return counted > cap ? { totalCount: cap, totalCountIsExact: false } : { totalCount: counted, totalCountIsExact: true };
}

/** The wording the GraphQL descriptions and errors share. */
export const INSPECTION_COUNT_CAP_TEXT = INSPECTION_COUNT_CAP.toLocaleString('en-US');
