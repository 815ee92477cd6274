/** One line of a pattern search's answer: its number, whether it matched (`:`) or is context (`-`), its text. */
export interface PatternRow {
  number: number;
  match: boolean;
  text: string;
}

/** `  4998:\tGET /a` → line 4998, a match; `  4997-\tGET /b` → line 4997, context. */
export function parsePatternRow(row: string): PatternRow {
  const head = /^ *(\d+)([:-])\t/.exec(row);
  if (head === null) throw new Error(`not a numbered line: ${JSON.stringify(row)}`);
  return { number: Number(head[1]), match: head[2] === ':', text: row.slice(head[0].length) };
}
