// The Compaction module's public surface: what the app may use.
export { MAX_EXCLUDE_TOOLS } from './compact-messages.checks';
export { COMPACTION_ENTITIES, COMPACTION_RESOLVERS, CompactionModule } from './compaction.module';
