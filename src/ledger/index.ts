// The Ledger module's public surface: what MCP and the app may use.
export { MAX_EXCLUDE_TOOLS } from './compact-messages.rules';
export { LEDGER_ENTITIES, LEDGER_RESOLVERS, LedgerModule } from './ledger.module';
export { LedgerService } from './ledger.service';
export { MIN_ANSWER_TOKENS } from './answer-window';
