/**
 * Whose snapshots a recall event can still show (R-FB-8): those of the event's user, in the
 * event's space, at the generation it was stored with.
 */
export interface ReturnedSnapshotOwner {
  readonly userId: string;
  readonly spaceId: string;
  readonly spaceGeneration: number;
}

/** A snapshot a recall returned, as an inspection shows it: the handle's address and stub, never a payload or its preview. */
export interface ReturnedSnapshot {
  id: string;
  memId: string;
  toolName: string;
  stub: string;
  sizeTokens: number;
  createdAt: Date;
}
