import { formatUtcDate } from '../../tool-results';
import { formatToolCall } from './format-tool-call';
import { Tokenizer } from '../../common/text/tokenizer';

/*
 * The prompt copy below is pinned byte for byte by a golden test (R-RC-1); the as-of-date
 * evals assert against it, so changing it means re-running them.
 */
export const PREVIOUSLY_FETCHED_HEADER = 'Previously fetched (this conversation, snapshots — not live data):';

export const PREVIOUSLY_FETCHED_FOOTER = [
  'IMPORTANT: when referencing a row above, always prefix with "as of <date>".',
  'If the user is asking about CURRENT state, call the tool fresh — do not',
  'present these snapshots as live data.',
].join('\n');

export interface BlockSnapshot {
  id: string;
  memId: string;
  toolName: string;
  toolInput?: unknown;
  createdAt: Date;
  /** The snapshot's stored one-line summary: the same text its handle and stub show. */
  handle: { summaryOneliner: string };
}

interface RenderedBlockLine {
  snapshotId: string;
  memId: string;
  toolName: string;
  createdAt: Date;
  text: string;
  tokens: number;
}

export interface RenderedBlock {
  text: string;
  tokens: number;
  lines: RenderedBlockLine[];
  droppedCount: number;
}

export interface BlockRenderOptions {
  tokenBudget: number;
  tokenizer: Tokenizer;
}

/**
 * Renders the snapshots (given newest first) as the block, newest row first. While the
 * whole text is over the budget, rows are dropped oldest first; if none fits the text is ''.
 * The text has no trailing newline: the caller decides how it joins the system prompt.
 */
export function renderPreviouslyFetchedBlock(snapshots: readonly BlockSnapshot[], options: BlockRenderOptions): RenderedBlock {
  const lines = snapshots.map((snapshot): RenderedBlockLine => {
    const text = renderBlockLine(snapshot);
    let tokens: number | undefined;
    return {
      snapshotId: snapshot.id,
      memId: snapshot.memId,
      toolName: snapshot.toolName,
      createdAt: snapshot.createdAt,
      text,
      // Counted when read (the API's `lines { tokens }`): the budget is checked on the whole text.
      get tokens(): number {
        tokens ??= options.tokenizer.count(text);
        return tokens;
      },
    };
  });
  for (let kept = lines.length; kept > 0; kept -= 1) {
    const text = composeBlockText(lines.slice(0, kept).map((line) => line.text));
    // Counted on the exact text, since BPE merges across line joins.
    const tokens = options.tokenizer.count(text);
    if (tokens <= options.tokenBudget) {
      return { text, tokens, lines: lines.slice(0, kept), droppedCount: lines.length - kept };
    }
  }
  return { text: '', tokens: 0, lines: [], droppedCount: lines.length };
}

/** `- YYYY-MM-DD tool(args): summary`, the date in UTC. */
export function renderBlockLine(snapshot: BlockSnapshot): string {
  const time = snapshot.createdAt.getTime();
  const date = Number.isNaN(time) ? 'undated' : formatUtcDate(time);
  const call = formatToolCall(snapshot.toolName, snapshot.toolInput);
  return `- ${date} ${call}: ${snapshot.handle.summaryOneliner}`;
}

function composeBlockText(rows: readonly string[]): string {
  return [PREVIOUSLY_FETCHED_HEADER, ...rows, '', PREVIOUSLY_FETCHED_FOOTER].join('\n');
}
