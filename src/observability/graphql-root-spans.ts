import { trace } from '@opentelemetry/api';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { inSpan } from './tracing';

/**
 * A span for each root field a traced request resolves (`graphql.resolve recallBlock`), its
 * statements under it. Only the root fields of Query and Mutation are wrapped, and a request that
 * is not traced passes straight through: one check of the active span.
 */
export function withRootFieldSpans(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) if (type) wrapRootFields(type);
  return schema;
}

function wrapRootFields(type: GraphQLObjectType): void {
  const operationType = type.name === 'Mutation' ? 'mutation' : 'query';
  for (const field of Object.values(type.getFields())) {
    const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
    const name = `graphql.resolve ${field.name}`;
    const attributes = { 'graphql.field.name': field.name, 'graphql.operation.type': operationType };
    field.resolve = function traced(source, args, ctx, info) {
      if (!trace.getActiveSpan()?.isRecording()) return resolve.call(this, source, args, ctx, info);
      const operationName = info.operation.name?.value;
      const named = operationName === undefined ? attributes : { ...attributes, 'graphql.operation.name': operationName };
      return inSpan(name, named, () => Promise.resolve(resolve.call(this, source, args, ctx, info)));
    };
  }
}
