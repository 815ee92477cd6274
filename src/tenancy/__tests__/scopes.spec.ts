import { ActorContext } from '../actor-context';
import { parseScopes, Scope } from '../scopes';

describe('scopes', () => {
  it('R-TN-2 keeps known scopes of a space-separated claim, sorted and unique', () => {
    expect(parseScopes('memory:write  admin unknown memory:write')).toEqual([Scope.ADMIN, Scope.MEMORY_WRITE]);
    expect(parseScopes(undefined)).toEqual([]);
    expect(parseScopes(['admin'])).toEqual([]);
  });

  it('R-TN-4 the actor answers for its scopes and the generation of its allowed spaces', () => {
    const actor = new ActorContext('u', 't', [Scope.MEMORY_READ], [{ id: 's1', generation: 3 }]);
    expect(actor.hasScope(Scope.MEMORY_READ)).toBe(true);
    expect(actor.hasScope(Scope.ADMIN)).toBe(false);
    expect(actor.allowedGeneration('s1')).toBe(3);
    expect(actor.allowedGeneration('s2')).toBeUndefined();
  });
});
