import { ResponseTooLargeError } from '../common/errors/app-error';
import type { RequestBudget } from '../observability/request-context';
import type { SnapshotColumns, ToolResultSnapshot } from './tool-result-snapshot';

/**
 * Reserves `chars` payload characters in the request's budget, or refuses the whole read with
 * RESPONSE_TOO_LARGE when the request would pass `maxChars` (RESPONSE_MAX_PAYLOAD_CHARS). Check and
 * add happen in one synchronous step, so resolvers of one request running side by side (aliases,
 * an MCP batch) cannot together overshoot. No budget (outside a request): nothing to bound.
 */
export function reservePayloadChars(budget: RequestBudget | undefined, chars: number, maxChars: number): void {
  if (budget === undefined || chars === 0) return;
  const requestedChars = budget.payloadChars + chars;
  if (requestedChars > maxChars) throw new ResponseTooLargeError(maxChars, requestedChars);
  budget.payloadChars = requestedChars;
}

/**
 * The payload characters these snapshots would carry in a response: the output's stored size and,
 * when the input is selected, its measured size (or its length when already loaded).
 */
export function payloadCharsOf(snapshots: readonly ToolResultSnapshot[], columns: SnapshotColumns): number {
  let chars = 0;
  for (const snapshot of snapshots) {
    if (columns.output) chars += snapshot.sizeChars;
    if (columns.input) chars += snapshot.inputChars ?? (JSON.stringify(snapshot.toolInput) ?? '').length;
  }
  return chars;
}
