import { FeatureFlag, TeamFeatureFlag } from './feature-flag.entity';
import { SpaceMember } from './space-member.entity';
import { Space } from './space.entity';
import { Team } from './team.entity';
import { UserTombstone } from './user-tombstone.entity';
import { User } from './user.entity';

export const TENANCY_ENTITIES = [Team, User, Space, SpaceMember, FeatureFlag, TeamFeatureFlag, UserTombstone];

export { Space, Team, User };
