import { Injectable } from '@nestjs/common';
import type { ActorContext } from '../tenancy';
import { type HistoryPage, type SnapshotColumns, ToolResultReader } from '../tool-results';
import { checkPriorQuery } from './prior-results.checks';

/** What priorToolResults (GraphQL) and recall_prior_tool_result (MCP) ask for. */
export interface PriorResultsQuery {
  conversationId: string | null;
  toolName: string | null;
  sinceDays: number | null;
  limit: number;
}

/** A tool's most recent stored results (R-RC-7): the one query behind the GraphQL field and the MCP tool. */
@Injectable()
export class PriorResultsService {
  constructor(private readonly snapshots: ToolResultReader) {}

  /** The actor's newest results matching the query, newest first; its bounds are checked before any SQL. */
  find(actor: ActorContext, query: PriorResultsQuery, columns: SnapshotColumns = {}): Promise<HistoryPage> {
    const since = checkPriorQuery(query.limit, query.sinceDays, new Date());
    const filter = { conversationId: query.conversationId, toolName: query.toolName, since };
    return this.snapshots.history(actor, filter, query.limit, null, columns);
  }
}
