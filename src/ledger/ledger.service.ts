import { Injectable } from '@nestjs/common';
import { o200kTokenizer } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy';
import { DEFAULT_ANSWER_MAX_TOKENS, payloadText, ToolResultsService } from '../tool-results';
import { windowAnswer } from './answer-window';
import { pathFetchChars, pathValueText } from './json-path-value';
import { offsetProblem, sliceByQuery } from './keyed-slice';
import { memNotFoundText, pathNotFoundText, planRecall, type RecallArguments } from './recall-request';

/**
 * Keyed retrieval of one snapshot by mem id (R-LG-2). Every outcome is text: a missing mem id,
 * another user's and one outside the allowed spaces read exactly alike, because the scope is
 * part of every query. Every answer but the stub is a window bounded in tokens and characters,
 * ending, when cut, with the exact call that reads on.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly toolResults: ToolResultsService,
    private readonly config: AppConfig,
  ) {}

  async recall(actor: ActorContext, args: RecallArguments): Promise<string> {
    const { answerMaxTokens = DEFAULT_ANSWER_MAX_TOKENS, maxReturnChars } = this.config.recall;
    const plan = planRecall(args, { maxTokens: answerMaxTokens, maxChars: maxReturnChars });
    if (plan.mode === 'answer') return plan.text;
    const { memId } = args;

    if (plan.mode === 'path') {
      const fetchChars = pathFetchChars(plan.offset + plan.bounds.maxChars);
      const found = await this.toolResults.findJsonPathValue(actor, memId, plan.path, fetchChars);
      if (found === null) return memNotFoundText(memId);
      if (found.value === null) return pathNotFoundText(memId, plan.pathText);
      const { text, whole } = pathValueText(found.value);
      return (
        offsetProblem(plan.offset, whole.complete ? text.length : found.value.bodyLength) ??
        windowAnswer(text, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer, whole)
      );
    }

    // The stub is stored: a summary never loads the payload.
    const snapshot = await this.toolResults.findByMemId(actor, memId, { output: plan.mode !== 'summary' });
    if (snapshot === null) return memNotFoundText(memId);
    if (plan.mode === 'summary') return snapshot.handle.stub;
    const payload = payloadText(snapshot.toolOutput);
    const text = plan.mode === 'query' ? sliceByQuery(payload, plan.query, memId) : payload;
    return offsetProblem(plan.offset, text.length) ?? windowAnswer(text, plan.offset, plan.bounds, plan.nextCall, o200kTokenizer);
  }
}
