import 'reflect-metadata';
import { RESOLVERS } from '../app.resolvers';
import { REQUIRED_SCOPES } from '../tenancy';
import { buildApiSchema } from '../api-schema';

// Nest's metadata keys for @Query/@Mutation (stable across @nestjs/graphql 10–14).
const RESOLVER_TYPE = 'graphql:resolver_type';
const RESOLVER_NAME = 'graphql:resolver_name';

function declaredScopes(): Record<string, string[] | 'UNDECLARED'> {
  const result: Record<string, string[] | 'UNDECLARED'> = {};
  for (const resolver of RESOLVERS) {
    const proto = resolver.prototype as unknown as Record<string, unknown>;
    for (const method of methodNames(proto)) {
      const handler = proto[method];
      if (typeof handler !== 'function') continue;
      const type = Reflect.getMetadata(RESOLVER_TYPE, handler) as string | undefined;
      if (type !== 'Query' && type !== 'Mutation') continue;
      const name = (Reflect.getMetadata(RESOLVER_NAME, handler) as string | undefined) ?? method;
      const scopes = (Reflect.getMetadata(REQUIRED_SCOPES, handler) ?? Reflect.getMetadata(REQUIRED_SCOPES, resolver)) as
        string[] | undefined;
      result[`${type}.${name}`] = scopes ?? 'UNDECLARED';
    }
  }
  return result;
}

/** The methods of a resolver's prototype and of those it extends (TeamToolSettingsResolver's). */
function methodNames(proto: object): Set<string> {
  const names = new Set<string>();
  for (let p: object | null = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') names.add(name);
  }
  return names;
}

describe('operation scopes', () => {
  // A diff here is a permission change: review it as one.
  it('R-TN-2 R-TN-6 every operation declares the scope it needs', () => {
    expect(declaredScopes()).toEqual({
      'Query.me': [],
      'Query.spaces': ['admin'],
      'Query.featureFlags': ['admin'],
      'Mutation.createSpace': ['admin'],
      'Mutation.addSpaceMember': ['admin'],
      'Mutation.removeSpaceMember': ['admin'],
      'Mutation.sealSpace': ['admin'],
      'Mutation.retireSpace': ['admin'],
      'Mutation.bumpSpaceGeneration': ['admin'],
      'Mutation.setFeatureFlag': ['admin'],
      'Query.toolResultHistory': ['memory:read'],
      'Query.toolResult': ['memory:read'],
      'Mutation.recordToolResults': ['memory:write'],
      'Query.toolSummaryRules': ['admin'],
      'Mutation.setToolSummaryRule': ['admin'],
      'Mutation.deleteToolSummaryRule': ['admin'],
      'Query.recallBlock': ['memory:read'],
      'Query.priorToolResults': ['memory:read'],
      'Query.recallToolResult': ['memory:read'],
      'Mutation.compactMessages': ['memory:write'],
      'Query.toolCompactionPolicies': ['admin'],
      'Mutation.setToolCompactionPolicy': ['admin'],
      'Mutation.deleteToolCompactionPolicy': ['admin'],
      'Query.recallMemory': ['memory:read'],
      // Any token; the service then requires memory:read (own events) or admin (the team's).
      'Query.recallEvent': [],
      'Mutation.recordRecallEvent': ['memory:write'],
      'Mutation.submitRecallFeedback': ['feedback:write'],
      'Query.feedbackEvents': ['admin'],
      'Query.feedbackEvent': ['admin'],
      'Query.feedbackMetrics': ['admin'],
      'Query.recallEvents': ['admin'],
      'Mutation.deleteUserData': ['admin'],
      'Mutation.runRetentionSweep': ['admin'],
    });
  });

  it('R-TN-5 the declarations cover every operation of the schema', async () => {
    const schema = await buildApiSchema();
    const operations = [
      ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((f) => `Query.${f}`),
      ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((f) => `Mutation.${f}`),
    ].sort();
    expect(Object.keys(declaredScopes()).sort()).toEqual(operations);
  });
});
