import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Actor, type ActorContext, RequiresScope, Scope } from '../../tenancy';
import { ToolCompactionPolicyInput, ToolCompactionPolicyModel } from './compaction-policy.model';
import { CompactionPoliciesService } from './compaction-policies.service';
import type { CompactionPolicySettings } from './compaction-policy.rules';

@Resolver(() => ToolCompactionPolicyModel)
export class CompactionPoliciesResolver {
  constructor(private readonly policies: CompactionPoliciesService) {}

  @Query(() => [ToolCompactionPolicyModel], { description: "admin: the team's compaction policies, by tool name. R-LG-4" })
  @RequiresScope(Scope.ADMIN)
  toolCompactionPolicies(@Actor() actor: ActorContext): Promise<ToolCompactionPolicyModel[]> {
    return this.policies.list(actor);
  }

  @Mutation(() => ToolCompactionPolicyModel, {
    description:
      "admin: sets the team's compaction policy for one tool, replacing any earlier one; compactMessages applies it where a " +
      'request says nothing. Version grows on each change. A bad policy is BAD_USER_INPUT naming the field. R-LG-4',
  })
  @RequiresScope(Scope.ADMIN)
  setToolCompactionPolicy(
    @Actor() actor: ActorContext,
    @Args('toolName') toolName: string,
    // Typed by its interface, so the global ValidationPipe's whitelist (which keeps only fields with
    // class-validator rules) leaves it whole: checkCompactionPolicy checks every field, naming it.
    @Args('policy', { type: () => ToolCompactionPolicyInput }) policy: CompactionPolicySettings,
  ): Promise<ToolCompactionPolicyModel> {
    return this.policies.set(actor, toolName, policy);
  }

  @Mutation(() => Boolean, {
    description: "admin: removes the team's compaction policy for a tool (true when there was one); the defaults apply again. R-LG-4",
  })
  @RequiresScope(Scope.ADMIN)
  deleteToolCompactionPolicy(@Actor() actor: ActorContext, @Args('toolName') toolName: string): Promise<boolean> {
    return this.policies.delete(actor, toolName);
  }
}
