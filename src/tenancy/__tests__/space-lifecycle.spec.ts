import { SpaceStatus } from '../entities/space.entity';
import { decideSpaceAction } from '../space-lifecycle';

const { ACTIVE, SEALED, RETIRED } = SpaceStatus;

describe('decideSpaceAction', () => {
  it('R-TN-6 seals an ACTIVE space, leaves a SEALED one as it is, and refuses a RETIRED one', () => {
    expect(decideSpaceAction(ACTIVE, 'seal')).toEqual({ kind: 'apply', status: SEALED });
    expect(decideSpaceAction(SEALED, 'seal')).toEqual({ kind: 'unchanged' });
    expect(decideSpaceAction(RETIRED, 'seal').kind).toBe('conflict');
  });

  it('R-TN-6 retires from any status, once', () => {
    expect(decideSpaceAction(ACTIVE, 'retire')).toEqual({ kind: 'apply', status: RETIRED });
    expect(decideSpaceAction(SEALED, 'retire')).toEqual({ kind: 'apply', status: RETIRED });
    expect(decideSpaceAction(RETIRED, 'retire')).toEqual({ kind: 'unchanged' });
  });

  it('R-TN-6 generations and members change on ACTIVE and SEALED spaces but never on RETIRED ones', () => {
    for (const action of ['bumpGeneration', 'changeMembers'] as const) {
      expect(decideSpaceAction(ACTIVE, action)).toEqual({ kind: 'apply', status: ACTIVE });
      expect(decideSpaceAction(SEALED, action)).toEqual({ kind: 'apply', status: SEALED });
      expect(decideSpaceAction(RETIRED, action)).toMatchObject({ kind: 'conflict', reason: expect.stringContaining('RETIRED') });
    }
  });
});
