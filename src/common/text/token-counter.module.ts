import { Global, Module } from '@nestjs/common';
import { TOKEN_COUNTER_METRIC_PROVIDERS, TokenCounter } from './token-counter';

/** One token-count pool per process, for every module that counts large texts. */
@Global()
@Module({ providers: [TokenCounter, ...TOKEN_COUNTER_METRIC_PROVIDERS], exports: [TokenCounter] })
export class TokenCounterModule {}
