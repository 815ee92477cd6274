import { RetentionLease } from './retention-lease.entity';

export const RETENTION_ENTITIES = [RetentionLease];
