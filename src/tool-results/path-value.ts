/**
 * The value a json_path selects, as PostgreSQL hands it over: never the whole payload, only the
 * selected value's text, itself cut at the caller's bound.
 */
export interface PathValue {
  /** `jsonb_typeof` of the value: object, array, string, number, boolean or null. */
  kind: string;
  /** A string leaf as its plain text; any other value as PostgreSQL's jsonb text. */
  body: string;
  /** The length of the whole body, before the cut, in PostgreSQL characters (code points). */
  bodyLength: number;
  /** The body is whole: the cut took nothing away. */
  complete: boolean;
}

/** What to select inside a payload, and how PostgreSQL finds it. */
export type JsonSelection =
  /** `#>` with these keys: the dotted form, where a key also reads an array index. */
  | { kind: 'keys'; keys: readonly string[] }
  /** The node a SQL/JSON path (strict) selects, if any: a singular RFC 9535 query. */
  | { kind: 'value'; sqlPath: string }
  /** Every node a SQL/JSON path selects, as one JSON array; past `maxNodes` or `timeoutMs` the lookup says so. */
  | { kind: 'nodes'; sqlPath: string; maxNodes: number; timeoutMs: number };

/** A selection's outcome in a snapshot: the value (null when nothing is there), or why there is none. */
export type PathLookup = { value: PathValue | null } | { tooMany: true } | { timedOut: true };
