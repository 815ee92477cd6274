/** The flags the service knows (R-TN-7). Each has a global default row seeded by a migration. */
export enum FeatureFlagKey {
  RECALL_FEEDBACK_ENABLED = 'recall_feedback_enabled',
}

export const KNOWN_FLAG_KEYS: readonly string[] = Object.values(FeatureFlagKey);
