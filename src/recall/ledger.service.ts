import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { payloadText } from '../tool-results/handle/build-handle';
import { ToolResultsService } from '../tool-results/tool-results.service';
import { pathFetchChars, renderPathValue } from './ledger/json-path-value';
import { capReturned, cutAnswer, sliceByQuery, sliceByRange } from './ledger/keyed-slice';
import { memNotFoundText, pathNotFoundText, planRecall, type RecallArguments } from './ledger/recall-request';

/**
 * Keyed retrieval of one snapshot by mem id (R-LG-2). Every outcome is text: a missing mem id,
 * another user's and one outside the allowed spaces read exactly alike, because the scope is
 * part of every query.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly toolResults: ToolResultsService,
    private readonly config: AppConfig,
  ) {}

  async recall(actor: ActorContext, args: RecallArguments): Promise<string> {
    const ceiling = this.config.recall.maxReturnChars;
    const plan = planRecall(args, ceiling);
    if (plan.mode === 'answer') return plan.text;
    const { memId } = args;

    if (plan.mode === 'path') {
      const found = await this.toolResults.findJsonPathValue(actor, memId, plan.path, pathFetchChars(ceiling));
      if (found === null) return memNotFoundText(memId);
      return found.value === null ? pathNotFoundText(memId, plan.pathText) : renderPathValue(found.value, plan.pathText, ceiling);
    }

    // The stub is stored: a summary never loads the payload.
    const snapshot = await this.toolResults.findByMemId(actor, memId, { output: plan.mode !== 'summary' });
    if (snapshot === null) return memNotFoundText(memId);
    switch (plan.mode) {
      case 'summary':
        return snapshot.handle.stub;
      case 'full':
        return capReturned(payloadText(snapshot.toolOutput), ceiling, memId);
      case 'query':
        return cutAnswer(sliceByQuery(payloadText(snapshot.toolOutput), plan.query, memId), ceiling, 'narrow the query');
      case 'range':
        return sliceByRange(payloadText(snapshot.toolOutput), plan.offset, plan.maxChars);
    }
  }
}
