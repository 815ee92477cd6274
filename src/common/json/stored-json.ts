import { randomBytes } from 'node:crypto';
import { types as pgTypes } from 'pg';

/** PostgreSQL's type oids of json and jsonb. */
const JSON_OID = 114;
const JSONB_OID = 3802;

/**
 * A JSON value as the database returned it: its text, as PostgreSQL renders a jsonb (`{"a": 1,
 * "b": [1, 2]}`), never parsed on the event loop. A tool payload can be 2 MiB of small objects, a
 * few hundred milliseconds to parse and serialize again as a value (R-TN-10): a response carries the
 * text as it came (stringifyWithStoredJson), a lookup reads it on a worker thread.
 */
export class StoredJson {
  private byteLength?: number;

  constructor(readonly text: string) {}

  /** Its bytes in UTF-8: what it takes in a response, where it is spliced as it is. */
  get bytes(): number {
    this.byteLength ??= Buffer.byteLength(this.text, 'utf8');
    return this.byteLength;
  }

  /** The value (JSON.parse): for a caller that needs its structure and knows it is small. */
  value(): unknown {
    return JSON.parse(this.text) as unknown;
  }

  /**
   * Inside stringifyWithStoredJson, a placeholder the text replaces; anywhere else (a serializer that
   * does not splice) the value, so the JSON is right either way.
   */
  toJSON(): unknown {
    if (splicing === null) return this.value();
    splicing.texts.push(this.text);
    splicing.marker ??= `\u0000stored-json:${randomBytes(12).toString('base64url')}:`;
    return `${splicing.marker}${splicing.texts.length - 1}`;
  }
}

/** The splice of the JSON.stringify running now (it is synchronous: one at a time). */
let splicing: { marker?: string; texts: string[] } | null = null;

/**
 * JSON.stringify of `value` with each StoredJson in it written as its stored text, not parsed and
 * serialized again. Each one is a placeholder during the stringify — a string of a random marker
 * no other text in the response can hold — replaced by its text after; a response with none costs
 * what JSON.stringify does.
 */
export function stringifyWithStoredJson(value: unknown): string {
  const splice: { marker?: string; texts: string[] } = { texts: [] };
  splicing = splice;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    splicing = null;
  }
  if (splice.marker === undefined) return json;
  // Each placeholder as JSON wrote it: `"\u0000stored-json:<marker>:<index>"`.
  const opening = JSON.stringify(splice.marker).slice(0, -1);
  const parts: string[] = [];
  let from = 0;
  for (let at = json.indexOf(opening); at !== -1; at = json.indexOf(opening, from)) {
    const close = json.indexOf('"', at + opening.length);
    parts.push(json.slice(from, at), splice.texts[Number(json.slice(at + opening.length, close))]);
    from = close + 1;
  }
  parts.push(json.slice(from));
  return parts.join('');
}

/**
 * pg's type parsers for a statement whose json and jsonb columns come back as StoredJson (runSql's
 * `storedJson`); every other type as the driver parses it.
 */
export const STORED_JSON_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (text: string) => unknown {
    if (oid === JSONB_OID || oid === JSON_OID) return (text) => new StoredJson(text);
    return pgTypes.getTypeParser(oid, format ?? 'text') as (text: string) => unknown;
  },
};
