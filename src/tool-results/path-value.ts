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
