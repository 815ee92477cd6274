import { Resolver } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { TeamToolSettingsResolver } from '../../tenancy';
import { TeamSummaryRulesModel } from './team-summary-rules.model';
import { TeamSummaryRulesService } from './team-summary-rules.service';

@Resolver(() => TeamSummaryRulesModel)
export class TeamSummaryRulesResolver extends TeamToolSettingsResolver<unknown, TeamSummaryRulesModel>({
  model: TeamSummaryRulesModel,
  list: { name: 'toolSummaryRules', description: "admin: the team's summary rules, by tool name. R-RC-3" },
  set: {
    name: 'setToolSummaryRule',
    description:
      "admin: sets the team's summary rules for one tool, in place of any built-in ones, for snapshots written from now on " +
      '(stored handles keep their summary); version grows on each change. A bad document is BAD_USER_INPUT naming the part. R-RC-3',
    argument: 'rule',
    type: GraphQLJSON,
  },
  delete: {
    name: 'deleteToolSummaryRule',
    description: "admin: removes the team's summary rules for a tool (true when there were some); built-in rules apply again. R-RC-3",
  },
}) {
  constructor(protected readonly settings: TeamSummaryRulesService) {
    super();
  }
}
