// PostgreSQL text cannot hold U+0000, and an unpaired surrogate is not UTF-8 at all.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL can store the text as given (no NUL, no unpaired surrogate). */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Length in characters (code points), as PostgreSQL's varchar(n) counts it. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}
