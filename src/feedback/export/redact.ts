/**
 * Redaction of free text before feedback leaves the database as an evaluation case (R-FB-10).
 * Pure functions, no Nest or database imports.
 *
 * What is masked, in this order (earlier rules see the text first, so a later rule never sees
 * half of something an earlier one replaced):
 * 1. e-mail addresses                                  → `[email]`
 * 2. `Bearer <credential>` (credential ≥ 16 characters) → `Bearer [token]`
 * 3. JWT-shaped strings (`xxx.yyy.zzz`, base64url)      → `[token]`
 * 4. prefixed secrets (`sk-…`, `ghp_…`, `github_pat_…`, `xoxb-…`, `glpat-…`, `AKIA…`) → `[token]`
 * 5. long runs (≥ 32) of hex, or of base64 mixing upper case, lower case and digits → `[token]`
 * 6. runs of ≥ 6 digits, single spaces or dashes allowed between them (phone, card, account
 *    numbers)                                           → `[digits]`
 *    An ISO calendar date (`2026-05-12`, optionally with a time) is kept: dates say how stale
 *    a result was, and a date is not an identifier.
 *
 * The masks match no rule, and the rules are applied until nothing changes, so redacting
 * twice changes nothing.
 */

export const EMAIL_MASK = '[email]';
export const TOKEN_MASK = '[token]';
export const DIGITS_MASK = '[digits]';

/** Smallest digit count that makes a run a "long digit run". */
const MIN_DIGIT_RUN = 6;
/** Smallest length of a bare hex or base64 run that is taken for a secret. */
const MIN_TOKEN_RUN = 32;

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;

const BEARER = /(?<![A-Za-z])(Bearer)\s+[A-Za-z0-9._~+/=-]{16,}/giu;

/** A JWT: `eyJ…` header (JSON `{"` in base64url) with any segment sizes, or three long segments. */
const JWT =
  /(?<![A-Za-z])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/gu;

const PREFIXED_SECRET = new RegExp(
  [
    String.raw`(?<![A-Za-z])(?:sk|pk|rk)[-_](?:(?:live|test|proj|ant|api\d*|admin)[-_])*[A-Za-z0-9_-]{16,}`, // OpenAI, Anthropic, Stripe
    String.raw`(?<![A-Za-z])gh[pousr]_[A-Za-z0-9]{20,}`, // GitHub tokens
    String.raw`(?<![A-Za-z])github_pat_[A-Za-z0-9_]{20,}`,
    String.raw`(?<![A-Za-z])xox[abposr]-[A-Za-z0-9-]{10,}`, // Slack
    String.raw`(?<![A-Za-z])glpat-[A-Za-z0-9_-]{20,}`, // GitLab
    String.raw`(?<![A-Za-z])AKIA[0-9A-Z]{16,}`, // AWS access key id
  ].join('|'),
  'gu',
);

/** Hex, or base64/base64url, at least {@link MIN_TOKEN_RUN} long (padding included). */
const LONG_RUN = new RegExp(String.raw`(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{${MIN_TOKEN_RUN},}={0,2}`, 'gu');
const HEX_ONLY = /^[0-9a-fA-F]+$/u;

/** An ISO date (kept), or a digit run (masked); the date is tried first at every position. */
const ISO_DATE = String.raw`(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?)?`;
const DIGIT_RUN = String.raw`\d(?:[ -]?\d){${MIN_DIGIT_RUN - 1},}`;
const DATE_OR_DIGITS = new RegExp(String.raw`(?<!\d)(${ISO_DATE})(?!\d)|(${DIGIT_RUN})`, 'gu');

export function maskEmails(text: string): string {
  return text.replace(EMAIL, EMAIL_MASK);
}

export function maskTokens(text: string): string {
  return text
    .replace(BEARER, (_match, word: string) => `${word} ${TOKEN_MASK}`)
    .replace(JWT, TOKEN_MASK)
    .replace(PREFIXED_SECRET, TOKEN_MASK)
    .replace(LONG_RUN, (run) => (looksLikeSecret(run) ? TOKEN_MASK : run));
}

export function maskDigitRuns(text: string): string {
  return text.replace(DATE_OR_DIGITS, (match, date: string | undefined) => (date !== undefined ? match : DIGITS_MASK));
}

/** Passes of the rules; one is almost always enough (see {@link redactText}). */
const MAX_PASSES = 4;

/**
 * Every rule above, in order, repeated until nothing changes: masking one thing can expose
 * another (a digit run glued to a key's prefix hides the key until the digits are masked).
 * The masks themselves match no rule, so the passes end.
 */
export function redactText(text: string): string {
  let current = text;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const next = maskDigitRuns(maskTokens(maskEmails(current)));
    if (next === current) return next;
    current = next;
  }
  return current;
}

/** {@link redactText}, passing null and undefined through as null. */
export function redactNullable(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : redactText(text);
}

/**
 * A bare run is a secret when it is hex (hashes, API keys) or base64 that mixes upper case,
 * lower case and digits; a long lower-case identifier or path is left alone.
 */
function looksLikeSecret(run: string): boolean {
  const body = run.replace(/=+$/u, '');
  if (HEX_ONLY.test(body)) return true;
  return /[A-Z]/u.test(body) && /[a-z]/u.test(body) && /\d/u.test(body);
}
