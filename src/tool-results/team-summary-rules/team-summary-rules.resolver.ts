import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { Actor, type ActorContext, RequiresScope, Scope } from '../../tenancy';
import { TeamSummaryRulesModel } from './team-summary-rules.model';
import { TeamSummaryRulesService } from './team-summary-rules.service';

@Resolver(() => TeamSummaryRulesModel)
export class TeamSummaryRulesResolver {
  constructor(private readonly rules: TeamSummaryRulesService) {}

  @Query(() => [TeamSummaryRulesModel], { description: "admin: the team's summary rules, by tool name. R-RC-3" })
  @RequiresScope(Scope.ADMIN)
  toolSummaryRules(@Actor() actor: ActorContext): Promise<TeamSummaryRulesModel[]> {
    return this.rules.list(actor);
  }

  @Mutation(() => TeamSummaryRulesModel, {
    description:
      "admin: sets the team's summary rules for one tool, in place of any built-in ones, for snapshots written from now on " +
      '(stored handles keep their summary); version grows on each change. A bad document is BAD_USER_INPUT naming the part. R-RC-3',
  })
  @RequiresScope(Scope.ADMIN)
  setToolSummaryRule(
    @Actor() actor: ActorContext,
    @Args('toolName') toolName: string,
    @Args('rule', { type: () => GraphQLJSON }) rule: unknown,
  ): Promise<TeamSummaryRulesModel> {
    return this.rules.set(actor, toolName, rule);
  }

  @Mutation(() => Boolean, {
    description: "admin: removes the team's summary rules for a tool (true when there were some); built-in rules apply again. R-RC-3",
  })
  @RequiresScope(Scope.ADMIN)
  deleteToolSummaryRule(@Actor() actor: ActorContext, @Args('toolName') toolName: string): Promise<boolean> {
    return this.rules.delete(actor, toolName);
  }
}
