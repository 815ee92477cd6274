// The Retention module's public surface: what the app may use.
export { RETENTION_ENTITIES } from './entities';
export { RETENTION_RESOLVERS, RetentionModule } from './retention.module';
