/** The flags the service knows (R-TN-7). Each has a global default row seeded by a migration. */
export enum FeatureFlagKey {
  RECALL_FEEDBACK_ENABLED = 'recall_feedback_enabled',
  /** Store a recall's raw query text (bounded) with its event; off: only its fingerprint. */
  RECALL_QUERY_TEXT_ENABLED = 'recall_query_text_enabled',
}

export const KNOWN_FLAG_KEYS: readonly string[] = Object.values(FeatureFlagKey);
