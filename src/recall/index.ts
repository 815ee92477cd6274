// The Recall module's public surface: what MCP and the app may use.
export { checkPriorQuery } from './prior-results.rules';
export { type RecallBlockOutcome, RecallBlockService } from './recall-block.service';
export { type RecallMemoryOutcome, RecallSearchService } from './recall-search.service';
export { RECALL_RESOLVERS, RecallModule } from './recall.module';
