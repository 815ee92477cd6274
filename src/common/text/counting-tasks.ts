import { tokenBoundaryFrom } from './tokenizer';

/** Texts counted in one worker task, and which of the caller's texts each is (a piece of). */
export interface CountingTask {
  texts: string[];
  owners: number[];
  chars: number;
}

/**
 * Cuts `texts` into tasks of at most about `pieceChars` characters each: a large text in pieces
 * cut where the tokenizer's counts add up (`tokenBoundaryFrom`), small texts together. The sum of
 * each owner's pieces' counts is its text's count. A text with no such point in reach (none in the
 * `pieceChars` after the cut: a long run of CJK, or of `{},`) keeps the rest whole, so the search
 * on the event loop reads at most `pieceChars` per piece.
 */
export function countingTasks(texts: readonly string[], pieceChars: number): CountingTask[] {
  const tasks: CountingTask[] = [];
  let open: CountingTask = { texts: [], owners: [], chars: 0 };
  const add = (owner: number, text: string): void => {
    if (open.chars > 0 && open.chars + text.length > pieceChars) {
      tasks.push(open);
      open = { texts: [], owners: [], chars: 0 };
    }
    open.texts.push(text);
    open.owners.push(owner);
    open.chars += text.length;
  };
  texts.forEach((text, owner) => {
    let from = 0;
    while (text.length - from > pieceChars) {
      const cut = tokenBoundaryFrom(text, from + pieceChars, pieceChars);
      if (cut >= text.length) break;
      add(owner, text.slice(from, cut));
      from = cut;
    }
    add(owner, from === 0 ? text : text.slice(from));
  });
  if (open.texts.length > 0) tasks.push(open);
  return tasks;
}
