import { type DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import type { ValidationError } from 'class-validator';
import { BadUserInputError } from './common/errors/app-error';
import { GraphqlErrorFilter } from './http/graphql-error.filter';
import { API_LIST_LIMITS, API_PAYLOAD_SELECTIONS } from './api-limits';
import { AppGraphqlModule } from './common/graphql/graphql.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ObservabilityModule } from './observability/observability.module';
import { TokenCounterModule } from './common/text/token-counter.module';
import { FeedbackModule } from './feedback';
import { CompactionModule } from './compaction';
import { LookupModule } from './lookup';
import { McpModule } from './mcp';
import { RecallModule } from './recall';
import { RecallEventsModule } from './recall-events';
import { RetentionModule } from './retention';
import { TenancyModule } from './tenancy';
import { ToolResultsModule } from './tool-results';

/** The first failing constraint, with its dotted field path (R-OP-4: BAD_USER_INPUT names the field). */
function firstViolation(errors: ValidationError[], prefix = ''): BadUserInputError {
  const error = errors[0];
  const path = prefix ? `${prefix}.${error.property}` : error.property;
  if (!error.constraints && error.children?.length) return firstViolation(error.children, path);
  const message = Object.values(error.constraints ?? {})[0] ?? `${path} is invalid`;
  return new BadUserInputError(path, `${path}: ${message}`);
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config, databaseUrl),
        AppGraphqlModule.forRoot(API_LIST_LIMITS, API_PAYLOAD_SELECTIONS),
        ScheduleModule.forRoot(),
        ObservabilityModule,
        TokenCounterModule,
        TenancyModule,
        ToolResultsModule,
        LookupModule,
        CompactionModule,
        RecallEventsModule,
        RecallModule,
        FeedbackModule,
        RetentionModule,
        McpModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: GraphqlErrorFilter },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({
            transform: true,
            whitelist: true,
            forbidUnknownValues: false,
            exceptionFactory: (errors) => firstViolation(errors),
          }),
        },
      ],
    };
  }
}
