// The Recall module's public surface: what MCP and the app may use.
export { PriorResultsService } from './prior-results.service';
export { type RecallBlockOutcome, RecallBlockService } from './recall-block.service';
export { type RecallMemoryOutcome, RecallSearchService } from './recall-search.service';
export { RECALL_RESOLVERS, RecallModule } from './recall.module';
