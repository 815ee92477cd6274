import { Resolver } from '@nestjs/graphql';
import { TeamToolSettingsResolver } from '../../tenancy';
import { ToolCompactionPolicyInput, ToolCompactionPolicyModel } from './compaction-policy.model';
import { CompactionPoliciesService } from './compaction-policies.service';
import type { CompactionPolicySettings } from './compaction-policy.checks';

@Resolver(() => ToolCompactionPolicyModel)
export class CompactionPoliciesResolver extends TeamToolSettingsResolver<CompactionPolicySettings, ToolCompactionPolicyModel>({
  model: ToolCompactionPolicyModel,
  list: { name: 'toolCompactionPolicies', description: "admin: the team's compaction policies, by tool name. R-LG-4" },
  set: {
    name: 'setToolCompactionPolicy',
    description:
      "admin: sets the team's compaction policy for one tool, replacing any earlier one; compactMessages applies it where a " +
      'request says nothing. Version grows on each change. A bad policy is BAD_USER_INPUT naming the field. R-LG-4',
    argument: 'policy',
    type: ToolCompactionPolicyInput,
  },
  delete: {
    name: 'deleteToolCompactionPolicy',
    description: "admin: removes the team's compaction policy for a tool (true when there was one); the defaults apply again. R-LG-4",
  },
}) {
  constructor(protected readonly settings: CompactionPoliciesService) {
    super();
  }
}
