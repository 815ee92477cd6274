import { findCompactionCandidates } from '../../src/compaction/compaction';
import type { CompactionCandidate, CompactionOptions } from '../../src/compaction/compaction.types';
import { isProblem, MessageFormat } from '../../src/compaction/history/history.types';
import { type History, readHistory } from '../../src/compaction/history/read-history';
import { renderStub } from './tool-results-service';

export const PURE_DEFAULTS: CompactionOptions = { sizeThreshold: 2000, keepLastN: 3, excludeTools: [] };
export const PURE_CONVERSATION = '5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5b';

export interface PureCompaction {
  history: History;
  candidates: CompactionCandidate[];
  /** The wire view; the input list itself when nothing was replaced. */
  messages: object[];
  /** Stub by stored id (`toolUseId`), as the service would hand them out. */
  stubs: Map<string, string>;
}

/** A stub as the service renders it, with a mem id from the candidate's place: no database needed. */
function pureStub(candidate: CompactionCandidate, index: number): string {
  return renderStub({
    memId: `mem_ABCDEFGHIJKLMNO${index}`,
    toolName: candidate.toolName,
    toolCallId: candidate.toolUseId,
    sizeChars: typeof candidate.payload === 'string' ? candidate.payload.length : JSON.stringify(candidate.payload).length,
    sizeTokens: 1000,
    summaryOneliner: 'fixture summary',
    schemaHint: null,
    headPreview: null,
  });
}

/**
 * compactMessages' pure chain — read the history, pick candidates, write stubs — without the
 * database. Throws with the problem's text when the history is refused.
 */
export function compactPure(
  value: unknown,
  format: MessageFormat = MessageFormat.AUTO,
  options: CompactionOptions = PURE_DEFAULTS,
  conversationId = PURE_CONVERSATION,
): PureCompaction {
  const history = readHistory(value, format);
  if (isProblem(history)) throw new Error(history.error);
  const candidates = findCompactionCandidates(history.reading, options, conversationId);
  const stubs = new Map(candidates.map((candidate, index) => [candidate.toolUseId, pureStub(candidate, index)]));
  const messages =
    history.adapter === null || candidates.length === 0
      ? history.entries
      : history.adapter.writeStubs(
          history.entries,
          candidates.map((candidate) => ({ site: candidate.site, stub: stubs.get(candidate.toolUseId) as string })),
        );
  return { history, candidates, messages, stubs };
}
