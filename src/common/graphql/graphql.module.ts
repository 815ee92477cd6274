import type { IncomingMessage } from 'node:http';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, Kind, type OperationDefinitionNode } from 'graphql';
import { AppConfig } from '../../config/app-config';
import { stringifyWithStoredJson } from '../json/stored-json';
import { operationLabel } from '../../observability/operation-label';
import { currentRequestId } from '../../observability/request-context';
import { labelRequestSpan } from '../../observability/http-tracing.middleware';
import { withRootFieldSpans } from '../../observability/graphql-root-spans';
import { tracingStarted } from '../../observability/tracing';
import { formatGraphqlError } from '../errors/format-graphql-error';
import { unavailableRetryAfter } from '../errors/unavailable-status';
import { checkListLimits, type ListLimits } from './list-limits';
import { checkPayloadValues, type PayloadSelections } from './payload-values';

const log = new Logger('GraphQL');
const errorLog = { error: (fields: Record<string, unknown>, message: string) => log.error({ ...fields, msg: message }) };

/**
 * Apollo Server 5 with the hardening of R-OP-3/R-OP-5; `listLimits` bound the API's list arguments,
 * `payloadSelections` say where its payloads are for GRAPHQL_MAX_PAYLOAD_VALUES.
 */
@Module({})
export class AppGraphqlModule {
  static forRoot(listLimits: ListLimits, payloadSelections: PayloadSelections): DynamicModule {
    return { module: AppGraphqlModule, imports: [graphqlModule(listLimits, payloadSelections)] };
  }
}

function graphqlModule(listLimits: ListLimits, payloadSelections: PayloadSelections): DynamicModule {
  return GraphQLModule.forRootAsync<ApolloDriverConfig>({
    driver: ApolloDriver,
    inject: [AppConfig],
    useFactory: (config: AppConfig): ApolloDriverConfig => {
      const armor = new ApolloArmor({
        maxDepth: { n: config.graphql.maxDepth, flattenFragments: true },
        maxAliases: { n: config.graphql.maxAliases },
        costLimit: { maxCost: config.graphql.maxCost },
        maxTokens: { n: config.graphql.maxTokens },
        maxDirectives: { n: 20 },
        blockFieldSuggestion: { enabled: config.isProduction },
      }).protect();
      // Operations without variables that passed the list and payload checks: their lists and payload
      // counts are all in their text, so the same document (Apollo keeps parsed ones) passes again.
      const checkedWithoutVariables = new WeakSet<OperationDefinitionNode>();
      return {
        autoSchemaFile: true,
        // Traced requests get a span per root field (R-OP-8).
        ...(tracingStarted() ? { transformSchema: withRootFieldSpans } : {}),
        sortSchema: true,
        path: '/graphql',
        playground: false,
        introspection: !config.isProduction,
        csrfPrevention: true,
        allowBatchedHttpRequests: false,
        includeStacktraceInErrorResponses: false,
        // A payload read from the database goes out as its stored text, never parsed and
        // serialized again on the event loop (R-TN-10); Apollo's own adds the same newline.
        stringifyResult: (result) => `${stringifyWithStoredJson(result)}\n`,
        // Nest owns shutdown (R-OP-2): Apollo must not install its own signal handlers.
        stopOnTerminationSignals: false,
        // The status an error asks for in `extensions.http` stands: RATE_LIMITED is a 429 with
        // Retry-After (R-TN-10). Nest would reset it to 200 once execution ran; no other error sets one.
        preserveHttpStatusForExecutionErrors: false,
        context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
        // A coded error thrown by a field resolver (RecallEvent.feedbackEvents' FORBIDDEN) is mapped
        // by the same filter as an operation's; guards stay per operation.
        fieldResolverEnhancers: ['filters'],
        plugins: [
          // graphql-armor ships ESM types of @apollo/server; the runtime objects are the same.
          ...(armor.plugins as NonNullable<ApolloDriverConfig['plugins']>),
          {
            // After parsing and validation, before execution: over-long lists and more payload
            // values than a response may carry cost no SQL (R-OP-5).
            requestDidStart: () =>
              Promise.resolve({
                didResolveOperation: (context) => {
                  const { schema, operation, document, request, contextValue } = context as unknown as DidResolveOperation;
                  if (contextValue.req) labelRequestSpan(contextValue.req, () => operationLabel(operation));
                  if (checkedWithoutVariables.has(operation)) return Promise.resolve();
                  const fragments = Object.fromEntries(
                    document.definitions
                      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
                      .map((d) => [d.name.value, d]),
                  );
                  checkListLimits(schema, operation, fragments, request.variables ?? {}, listLimits);
                  checkPayloadValues(
                    schema,
                    operation,
                    fragments,
                    request.variables ?? {},
                    payloadSelections,
                    config.graphql.maxPayloadValues,
                  );
                  if ((operation.variableDefinitions?.length ?? 0) === 0) checkedWithoutVariables.add(operation);
                  return Promise.resolve();
                },
                // Nothing of the request answered, only because the database did not in time: HTTP 503 (R-OP-6).
                willSendResponse: ({ response }) => {
                  const retryAfter = response.body.kind === 'single' ? unavailableRetryAfter(response.body.singleResult) : null;
                  if (retryAfter !== null) {
                    response.http.status = 503;
                    response.http.headers.set('retry-after', String(retryAfter));
                  }
                  return Promise.resolve();
                },
              }),
          },
        ],
        validationRules: armor.validationRules,
        formatError: (formatted, error) => formatGraphqlError(formatted, unwrapResolverError(error), currentRequestId(), errorLog),
      };
    },
  });
}

/** What the plugin reads of Apollo's request context (its types come in an ESM build here). */
interface DidResolveOperation {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  document: DocumentNode;
  request: { variables?: Record<string, unknown> };
  contextValue: { req?: IncomingMessage };
}
