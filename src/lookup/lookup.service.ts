import { Injectable } from '@nestjs/common';
import { StoredJson } from '../common/json/stored-json';
import { payloadTextOfJson } from '../common/text/json-text';
import { countLines } from '../common/text/text-lines';
import { OFF_THREAD_FROM_CHARS } from '../common/text/token-counter';
import { o200kTokenizer } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import { type ActorContext, actorOf, type ActorOrPending } from '../tenancy';
import { type JsonSelection, type PathLookup, ToolResultReader, ToolResultPathLookups } from '../tool-results';
import { TokenPieces, windowAnswer } from './answer-window';
import { pathFetchChars, pathValueText } from './json-path-value';
import { offsetProblem, SUBSTRING_KEPT_OFFSETS, substringMatchesAnswer, sliceBySubstring } from './keyed-slice';
import { lineStartProblem, lineWindowAnswer } from './line-window';
import { PATTERN_TIMEOUT_MS, patternWindowAnswer } from './pattern/pattern-window';
import { ServedTextCache } from './served-text-cache';
import { SUBSTRING_MAX_COUNTED_MATCHES, SUBSTRING_OFF_THREAD_FROM_CHARS, SUBSTRING_TIMEOUT_MS } from './substring/substring-search';
import { currentRequestBudget, inPayloadReadTurn } from '../observability/request-context';

import { DatabasePathTurns } from './json-path/database-path-turns';
import { LookupPool } from './lookup-pool';
import { JSON_PATH_LIBRARY_MAX_CHARS, JSON_PATH_MAX_NODES, JSON_PATH_TIMEOUT_MS } from './json-path/plan-json-path';
import {
  badPatternText,
  memNotFoundText,
  overRequestBudgetText,
  payloadBudgetText,
  payloadBusyText,
  payloadTimedOutText,
  pathNotFoundText,
  pathTimedOutText,
  pathTooLargeText,
  patternTimedOutText,
  planLookup,
  poolBusyText,
  substringTimedOutText,
  searchBusyText,
  searchOverRequestBudgetText,
  type LookupArguments,
  type LookupPlan,
  tooManyNodesText,
} from './lookup-request';

/**
 * Keyed retrieval of one snapshot by mem id (R-LG-2). Every outcome is text: a missing mem id,
 * another user's and one outside the allowed spaces read exactly alike, because the scope is
 * part of every statement. Every answer but the stub is a window bounded in tokens and characters,
 * ending, when cut, with the exact call that reads on.
 */
@Injectable()
export class LookupService {
  private readonly texts: ServedTextCache;

  constructor(
    private readonly snapshots: ToolResultReader,
    private readonly pathLookups: ToolResultPathLookups,
    private readonly config: AppConfig,
    private readonly lookups: LookupPool,
    private readonly databasePaths: DatabasePathTurns,
  ) {
    this.texts = new ServedTextCache(config.lookup.textCacheChars, o200kTokenizer);
  }

  /** `caller`: the guard's actor, or a `PendingActor` a JSONPath's single value reads in its own statement. */
  async lookUp(caller: ActorOrPending, args: LookupArguments): Promise<string> {
    const { answerMaxTokens, maxReturnChars } = this.config.lookup;
    const plan = planLookup(args, { maxTokens: answerMaxTokens, maxChars: maxReturnChars });
    const { memId } = args;
    if (plan.mode === 'path' && plan.path.kind !== 'library' && plan.path.selection.kind !== 'nodes') {
      return this.lookupPathValue(caller, memId, plan, plan.path.selection);
    }
    // Every other answer, a refusal of the arguments too, comes after the actor is read the guard's way.
    const actor = await actorOf(caller);
    if (plan.mode === 'answer') return plan.text;

    if (plan.mode === 'path') return this.lookupPath(actor, memId, plan);

    if (plan.mode === 'summary') {
      // The stub is stored: a summary never loads the payload.
      const snapshot = await this.snapshots.findByMemId(actor, memId);
      return snapshot === null ? memNotFoundText(memId) : snapshot.handle.stub;
    }
    if (plan.mode === 'pattern') return this.lookupPattern(actor, memId, plan);
    if (plan.mode === 'substring') return this.lookupSubstring(actor, memId, plan);
    const pieces = await this.readPayload(actor, memId);
    if (typeof pieces === 'string') return pieces;
    const payload = pieces.text;
    if (plan.mode === 'lines') return lineWindowAnswer(payload, plan.lineStart, plan.lineCount, plan.bounds, plan.calls, o200kTokenizer);
    return (
      offsetProblem(plan.offset, payload.length) ??
      windowAnswer(payload, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer, { complete: true }, pieces)
    );
  }

  /**
   * The payload text of the actor's snapshot, with its counted token pieces, or the bracketed
   * answer (not found, over the request's payload budget). A kept text is not fetched again, but
   * the actor's row is still looked up (the database decides who reads what), and it counts in
   * the request's budget as a text read from the database does: by its bytes in UTF-8. With
   * `maxChars`, a longer payload is neither loaded nor counted: its size comes back instead.
   */
  private readPayload(actor: ActorContext, memId: string): Promise<TokenPieces | string>;
  private readPayload(actor: ActorContext, memId: string, maxChars: number): Promise<TokenPieces | { sizeChars: number } | string>;
  private async readPayload(
    actor: ActorContext,
    memId: string,
    maxChars = Infinity,
  ): Promise<TokenPieces | { sizeChars: number } | string> {
    const kept = this.texts.get(memId);
    const read = await this.readCounted(
      async () => {
        // Not kept: the output comes with the row when it is small (or a string, whose text is read
        // in place); a larger document is read once a lookup thread is held for the team.
        const snapshot =
          kept !== undefined
            ? await this.snapshots.findByMemId(actor, memId)
            : maxChars < Infinity
              ? await this.snapshots.findByMemIdWithSmallOutput(actor, memId, maxChars)
              : await this.snapshots.findByMemIdWithSmallOutput(actor, memId, OFF_THREAD_FROM_CHARS - 1, { strings: true });
        if (snapshot === null) return null;
        if (kept !== undefined) return kept.text.length <= maxChars ? kept : { sizeChars: snapshot.sizeChars };
        if (snapshot.toolOutput instanceof StoredJson) return this.texts.put(memId, payloadTextOfJson(snapshot.toolOutput.text));
        if (maxChars < Infinity) return { sizeChars: snapshot.sizeChars };
        const served = await this.lookups.payloadText(actor.teamId, async () => {
          const document = await this.snapshots.findByMemId(actor, memId, { output: true });
          return document?.toolOutput instanceof StoredJson ? document.toolOutput.text : null;
        });
        if ('text' in served) return this.texts.put(memId, served.text);
        if ('missing' in served) return null;
        // A bracketed answer, as a budget's is.
        return 'busy' in served ? payloadBusyText(memId) : payloadTimedOutText(memId);
      },
      (found) => (found instanceof TokenPieces ? Buffer.byteLength(found.text, 'utf8') : 0),
    );
    if (typeof read === 'string') return read;
    if (read === null) {
      this.texts.delete(memId);
      return memNotFoundText(memId);
    }
    return read;
  }

  /**
   * The matches of a substring, searched where the payload is read when it is short; a longer
   * one is searched in a worker thread (linear, under a time budget) once one is held for the
   * team, and read only then. The matches are rendered and windowed here; a refusal is not.
   */
  private async lookupSubstring(actor: ActorContext, memId: string, plan: Extract<LookupPlan, { mode: 'substring' }>): Promise<string> {
    const { substring } = plan;
    const window = (text: string) =>
      offsetProblem(plan.offset, text.length) ?? windowAnswer(text, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer);
    const small = await this.readPayload(actor, memId, SUBSTRING_OFF_THREAD_FROM_CHARS - 1);
    if (typeof small === 'string') return small;
    if (small instanceof TokenPieces) return window(sliceBySubstring(small.text, substring, memId));
    let payload = '';
    const found = await this.lookups.searchText(actor.teamId, async () => {
      const pieces = await this.readPayload(actor, memId);
      if (typeof pieces === 'string') return pieces;
      payload = pieces.text;
      const limits = { maxCounted: SUBSTRING_MAX_COUNTED_MATCHES, keepOffsets: SUBSTRING_KEPT_OFFSETS };
      return { text: payload, substring, timeoutMs: SUBSTRING_TIMEOUT_MS, ...limits };
    });
    if (typeof found === 'string') return found;
    if ('busy' in found) return searchBusyText('query');
    if ('overRequestBudget' in found) return searchOverRequestBudgetText('query', found.overRequestBudget);
    if ('timedOut' in found) return substringTimedOutText(substring);
    return window(substringMatchesAnswer(payload, substring, memId, found));
  }

  /** A json_path's node list, in PostgreSQL where it translates, else by the library on the fetched payload (single values: lookupPathValue). */
  private async lookupPath(actor: ActorContext, memId: string, plan: Extract<LookupPlan, { mode: 'path' }>): Promise<string> {
    const { path, pathText } = plan;
    if (path.kind === 'library') {
      // The document is read once a thread is held for the team, never to be told "busy" after.
      const answer = await this.lookups.evaluate(actor.teamId, async () => {
        const found = await this.readCounted(
          () => this.pathLookups.findJsonDocument(actor, memId, JSON_PATH_LIBRARY_MAX_CHARS),
          (f) => (f?.documentText === undefined ? 0 : Buffer.byteLength(f.documentText, 'utf8')),
        );
        if (typeof found === 'string') return found;
        if (found === null) return memNotFoundText(memId);
        if (found.documentText === undefined) return pathTooLargeText(memId, pathText, found.sizeChars);
        return {
          pathText,
          documentText: found.documentText,
          list: path.list,
          timeoutMs: JSON_PATH_TIMEOUT_MS,
          maxNodes: JSON_PATH_MAX_NODES,
        };
      });
      if (typeof answer === 'string') return answer;
      if ('busy' in answer) return poolBusyText();
      if ('overRequestBudget' in answer) return overRequestBudgetText(answer.overRequestBudget);
      if ('tooMany' in answer) return tooManyNodesText(memId, pathText);
      if ('timedOut' in answer) return pathTimedOutText(pathText);
      if ('notFound' in answer) return pathNotFoundText(memId, pathText);
      return (
        offsetProblem(plan.offset, answer.text.length) ?? windowAnswer(answer.text, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer)
      );
    }

    // A node list walks the payload in PostgreSQL: it waits for the team's turn there.
    const found = await this.databasePaths.run(actor.teamId, () =>
      this.pathLookups.findJsonPathValue(actor, memId, path.selection, this.pathFetchChars(plan)),
    );
    return found === null ? poolBusyText() : this.answerPathValue(memId, plan, found);
  }

  /** A single value (a dotted path's keys or a singular SQL/JSON path) in one statement, the actor's read included. */
  private async lookupPathValue(
    caller: ActorOrPending,
    memId: string,
    plan: Extract<LookupPlan, { mode: 'path' }>,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
  ): Promise<string> {
    return this.answerPathValue(
      memId,
      plan,
      await this.pathLookups.findJsonPathValueAs(caller, memId, selection, this.pathFetchChars(plan)),
    );
  }

  private pathFetchChars(plan: Extract<LookupPlan, { mode: 'path' }>): number {
    return pathFetchChars(plan.offset + plan.bounds.maxChars);
  }

  private answerPathValue(memId: string, plan: Extract<LookupPlan, { mode: 'path' }>, found: PathLookup | null): string {
    const { pathText } = plan;
    if (found === null) return memNotFoundText(memId);
    if ('tooMany' in found) return tooManyNodesText(memId, pathText);
    if ('timedOut' in found) return pathTimedOutText(pathText);
    if (found.value === null) return pathNotFoundText(memId, pathText);
    const { text, whole } = pathValueText(found.value);
    return (
      offsetProblem(plan.offset, whole.complete ? text.length : found.value.bodyLength) ??
      windowAnswer(text, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer, whole)
    );
  }

  /**
   * The lines matching a pattern, searched in a worker thread (RE2, linear time, under a time
   * budget) once one is held for the team, the payload read then; numbered and windowed here.
   */
  private async lookupPattern(actor: ActorContext, memId: string, plan: Extract<LookupPlan, { mode: 'pattern' }>): Promise<string> {
    const { pattern, lineStart, lineCount } = plan;
    let read: { payload: string; total: number; lineEnd: number } | undefined;
    const found = await this.lookups.searchLines(actor.teamId, async () => {
      const pieces = await this.readPayload(actor, memId);
      if (typeof pieces === 'string') return pieces;
      const total = countLines(pieces.text);
      const pastTheEnd = lineStartProblem(lineStart, total);
      if (pastTheEnd !== null) return pastTheEnd;
      read = { payload: pieces.text, total, lineEnd: lineCount === null ? total : Math.min(total, lineStart + lineCount - 1) };
      return { text: read.payload, pattern, lineStart, lineEnd: read.lineEnd, timeoutMs: PATTERN_TIMEOUT_MS };
    });
    if (typeof found === 'string') return found;
    if ('busy' in found) return searchBusyText('pattern');
    if ('overRequestBudget' in found) return searchOverRequestBudgetText('pattern', found.overRequestBudget);
    if ('timedOut' in found) return patternTimedOutText(pattern);
    if ('problem' in found) return badPatternText(pattern, found.problem);
    const { payload, total, lineEnd } = read as NonNullable<typeof read>;
    return patternWindowAnswer(
      payload,
      { total, lineStart, lineEnd, lines: found.lines, starts: found.starts },
      { contextLines: plan.contextLines, lineCount },
      plan.bounds,
      plan.calls,
      o200kTokenizer,
    );
  }

  /**
   * A read of a whole payload, counted in the request's budget (RESPONSE_MAX_PAYLOAD_BYTES) once
   * loaded: a request of many aliases or a JSON-RPC batch cannot load payloads without bound. The
   * request's reads take turns, so each checks what the ones before it loaded; past the budget the
   * answer is a bracketed text. Its last read may pass the budget by one payload.
   */
  private readCounted<T>(read: () => Promise<T>, bytesOf: (found: T) => number): Promise<T | string> {
    const budget = currentRequestBudget();
    const maxBytes = this.config.toolResults.responseMaxPayloadBytes;
    return inPayloadReadTurn(budget, async () => {
      if (budget !== undefined && budget.payloadBytes >= maxBytes) return payloadBudgetText(budget.payloadBytes, maxBytes);
      const found = await read();
      if (budget !== undefined) budget.payloadBytes += bytesOf(found);
      return found;
    });
  }
}
