/**
 * Defaults of the settings that pure code also needs as a plain number (a stub's answer bound, the
 * block's K and budget): one definition, applied by `loadConfig` and used as the pure functions'
 * defaults, so a changed number changes everywhere at once.
 */

/** Token bound of every keyed lookup answer, marker included (R-LG-2). */
export const DEFAULT_ANSWER_MAX_TOKENS = 8_000;
/** How many recent snapshots the block is built from (K, R-RC-1). */
export const DEFAULT_BLOCK_ROWS = 5;
/** Hard bound on the whole block's tokens (R-RC-2). */
export const DEFAULT_BLOCK_TOKEN_BUDGET = 300;
