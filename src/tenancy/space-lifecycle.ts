import { SpaceStatus } from './entities/space.entity';

export type SpaceAction = 'seal' | 'retire' | 'bumpGeneration' | 'changeMembers';

export type LifecycleDecision = { kind: 'apply'; status: SpaceStatus } | { kind: 'unchanged' } | { kind: 'conflict'; reason: string };

/**
 * What an admin action does to a space in a given status. ACTIVE → SEALED → RETIRED; RETIRED is
 * final. Repeating a transition is harmless (unchanged), so admin tools can retry blindly.
 */
export function decideSpaceAction(status: SpaceStatus, action: SpaceAction): LifecycleDecision {
  if (action === 'seal') {
    if (status === SpaceStatus.ACTIVE) return { kind: 'apply', status: SpaceStatus.SEALED };
    if (status === SpaceStatus.SEALED) return { kind: 'unchanged' };
    return { kind: 'conflict', reason: 'A RETIRED space cannot be sealed; retiring is final.' };
  }
  if (action === 'retire') {
    return status === SpaceStatus.RETIRED ? { kind: 'unchanged' } : { kind: 'apply', status: SpaceStatus.RETIRED };
  }
  if (status === SpaceStatus.RETIRED) {
    const what = action === 'bumpGeneration' ? 'its generation bumped' : 'its members changed';
    return { kind: 'conflict', reason: `A RETIRED space cannot have ${what}; retiring is final.` };
  }
  return { kind: 'apply', status };
}
