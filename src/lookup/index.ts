// The Lookup module's public surface: what MCP and the app may use.
export { MIN_ANSWER_TOKENS } from './answer-window';
export { LOOKUP_RESOLVERS, LookupModule } from './lookup.module';
export { LookupService } from './lookup.service';
