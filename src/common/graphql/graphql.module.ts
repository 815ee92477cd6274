import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Logger, Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { AppConfig } from '../../config/app-config';
import { currentRequestId } from '../../observability/request-context';
import { formatGraphqlError } from '../errors/format-graphql-error';

const log = new Logger('GraphQL');
const errorLog = { error: (fields: Record<string, unknown>, message: string) => log.error({ ...fields, msg: message }) };

/** Apollo Server 5 with the hardening of SPEC R-OP-3/R-OP-5. */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
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
        return {
          autoSchemaFile: true,
          sortSchema: true,
          path: '/graphql',
          playground: false,
          introspection: !config.isProduction,
          csrfPrevention: true,
          allowBatchedHttpRequests: false,
          includeStacktraceInErrorResponses: false,
          // Nest owns shutdown (R-OP-2): Apollo must not install its own signal handlers.
          stopOnTerminationSignals: false,
          context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
          // graphql-armor ships ESM types of @apollo/server; the runtime objects are the same.
          plugins: armor.plugins as ApolloDriverConfig['plugins'],
          validationRules: armor.validationRules,
          formatError: (formatted, error) => formatGraphqlError(formatted, unwrapResolverError(error), currentRequestId(), errorLog),
        };
      },
    }),
  ],
})
export class AppGraphqlModule {}
