import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { ToolResultRepository } from '../tool-results/tool-result.repository';
import { pathFetchChars, renderPathValue } from './ledger/json-path-value';
import { capReturned, cutAnswer, sliceByQuery, sliceByRange } from './ledger/keyed-slice';
import { memNotFoundText, pathNotFoundText, planRecall, type RecallArguments } from './ledger/recall-request';
import { handleOf, payloadText } from './snapshot-handle';

/**
 * Keyed retrieval of one snapshot by mem id (R-LG-2). Every outcome is text: a missing mem id
 * and another user's read exactly alike, because the user predicate is part of every query.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly snapshots: ToolResultRepository,
    private readonly config: AppConfig,
  ) {}

  async recall(actor: ActorContext, args: RecallArguments): Promise<string> {
    const ceiling = this.config.recall.maxReturnChars;
    const plan = planRecall(args, ceiling);
    if (plan.mode === 'answer') return plan.text;
    const { memId } = args;

    if (plan.mode === 'path') {
      const found = await this.snapshots.findJsonPathValue(actor.userId, memId, plan.path, pathFetchChars(ceiling));
      if (found === null) return memNotFoundText(memId);
      return found.value === null ? pathNotFoundText(memId, plan.pathText) : renderPathValue(found.value, plan.pathText, ceiling);
    }

    const snapshot = await this.snapshots.findByMemId(actor.userId, memId);
    if (snapshot === null) return memNotFoundText(memId);
    switch (plan.mode) {
      case 'summary':
        return handleOf(snapshot).stub;
      case 'full':
        return capReturned(payloadText(snapshot.toolOutput), ceiling, memId);
      case 'query':
        return cutAnswer(sliceByQuery(payloadText(snapshot.toolOutput), plan.query, memId), ceiling, 'narrow the query');
      case 'range':
        return sliceByRange(payloadText(snapshot.toolOutput), plan.offset, plan.maxChars);
    }
  }
}
