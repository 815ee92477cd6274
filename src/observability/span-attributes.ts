/** Our own span attributes; the rest are OpenTelemetry's semantic conventions. */
export const SPAN_ATTRIBUTES = {
  teamId: 'recall_ledger.team_id',
  spaceId: 'recall_ledger.space_id',
  requestId: 'recall_ledger.request_id',
  snapshots: 'recall_ledger.snapshots',
  refs: 'recall_ledger.refs',
  items: 'recall_ledger.items',
  rows: 'recall_ledger.rows',
} as const;
