import { Args, ID, Mutation, Resolver } from '@nestjs/graphql';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import { DeletionReportModel, RetentionReportModel } from './models/retention.model';
import { RetentionSweepService } from './retention-sweep.service';
import { UserDeletionService } from './user-deletion.service';

@Resolver()
export class RetentionResolver {
  constructor(
    private readonly sweeps: RetentionSweepService,
    private readonly deletions: UserDeletionService,
  ) {}

  @Mutation(() => DeletionReportModel, { description: 'admin. R-RT-4' })
  @RequiresScope(Scope.ADMIN)
  deleteUserData(
    @Actor() actor: ActorContext,
    @Args('userId', { type: () => ID }, new UuidPipe('userId')) userId: string,
  ): Promise<DeletionReportModel> {
    return this.deletions.deleteUserData(actor, userId);
  }

  @Mutation(() => RetentionReportModel, {
    description: "admin. R-RT-6: sweeps the admin's own team's expired rows now and reports only those (the scheduler sweeps every team).",
  })
  @RequiresScope(Scope.ADMIN)
  runRetentionSweep(@Actor() actor: ActorContext): Promise<RetentionReportModel> {
    return this.sweeps.sweepTeam(actor.teamId);
  }
}
