import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import type { CompactMessagesArgs } from './compact-messages.checks';
import { CompactionService } from './compaction.service';
import { CompactMessagesInput, CompactMessagesPayload } from './models/compact-messages.model';

@Resolver()
export class CompactionResolver {
  constructor(private readonly compaction: CompactionService) {}

  @Mutation(() => CompactMessagesPayload, { description: 'memory:write. R-LG-3' })
  @RequiresScope(Scope.MEMORY_WRITE)
  compactMessages(
    @Actor() actor: ActorContext,
    // Typed by its interface, so the global ValidationPipe (which deep-copies a class argument with
    // class-transformer) leaves the message list alone: a 370 KB history of JSON objects cost it
    // 30–60 ms a call. checkCompactMessagesInput checks every field.
    @Args('input', { type: () => CompactMessagesInput }) input: CompactMessagesArgs,
  ): Promise<CompactMessagesPayload> {
    return this.compaction.compact(actor, input);
  }
}
