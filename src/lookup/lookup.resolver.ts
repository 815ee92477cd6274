import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import { ActorInStatement, type ActorOrPending, Caller, RequiresScope, Scope } from '../tenancy';
import { LookupService } from './lookup.service';
import { LookupFormat } from './models/lookup-format.enum';

@Resolver()
export class LookupResolver {
  constructor(private readonly lookup: LookupService) {}

  @Query(() => String, { description: 'memory:read; never a GraphQL error for a bad mem id, path or range. R-LG-2' })
  @RequiresScope(Scope.MEMORY_READ)
  @ActorInStatement()
  recallToolResult(
    @Caller() caller: ActorOrPending,
    @Args('memId') memId: string,
    @Args('format', { type: () => LookupFormat, nullable: true, defaultValue: LookupFormat.SUMMARY }) format: LookupFormat | null,
    @Args('query', { type: () => String, nullable: true }) substring: string | null,
    @Args('offset', { type: () => Int, nullable: true }) offset: number | null,
    @Args('maxChars', { type: () => Int, nullable: true }) maxChars: number | null,
    @Args('jsonPath', { type: () => String, nullable: true }) jsonPath: string | null,
    @Args('lineStart', { type: () => Int, nullable: true, description: '1-based first line of a line range, numbered in the answer.' })
    lineStart: number | null,
    @Args('lineCount', { type: () => Int, nullable: true, description: 'How many lines from lineStart; without it, to the last line.' })
    lineCount: number | null,
    @Args('maxTokens', {
      type: () => Int,
      nullable: true,
      description: 'Lowers the token bound of this answer (RECALL_ANSWER_MAX_TOKENS); at least 100.',
    })
    maxTokens: number | null,
    @Args('pattern', {
      type: () => String,
      nullable: true,
      description:
        'RE2 regular expression (case-sensitive; (?i) for case-insensitive, at most 1,000 characters): the numbered lines matching it, ' +
        'searched from lineStart for lineCount lines, matches counted.',
    })
    pattern: string | null,
    @Args('contextLines', {
      type: () => Int,
      nullable: true,
      description: 'With pattern: lines of context before and after each matching line, 0 (the default) to 50.',
    })
    contextLines: number | null,
  ): Promise<string> {
    const given = { query: substring, offset, maxChars, jsonPath, lineStart, lineCount, maxTokens, pattern, contextLines };
    return this.lookup.lookUp(caller, { memId, format: format ?? LookupFormat.SUMMARY, ...given });
  }
}
