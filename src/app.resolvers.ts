import { TENANCY_RESOLVERS } from './tenancy/tenancy.module';

/** Every resolver class of the API, for schema generation and the scope snapshot test. */
export const RESOLVERS = [...TENANCY_RESOLVERS];
