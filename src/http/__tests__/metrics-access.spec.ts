import { bearerTokenOf, sameSecret } from '../metrics-access';

describe('metrics access', () => {
  it('R-OP-1 reads the bearer token of an Authorization header, the scheme in any case', () => {
    expect(bearerTokenOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerTokenOf('bearer  abc ')).toBe('abc');
    expect(bearerTokenOf(undefined)).toBeNull();
    expect(bearerTokenOf('Basic dXNlcjpwYXNz')).toBeNull();
    expect(bearerTokenOf('Bearer')).toBeNull();
    expect(bearerTokenOf('Bearer a b')).toBeNull();
  });

  it('R-OP-1 compares secrets exactly, whatever their lengths', () => {
    expect(sameSecret('metrics-token-0123456789', 'metrics-token-0123456789')).toBe(true);
    expect(sameSecret('metrics-token-0123456788', 'metrics-token-0123456789')).toBe(false);
    expect(sameSecret('metrics', 'metrics-token-0123456789')).toBe(false);
    expect(sameSecret('', 'metrics-token-0123456789')).toBe(false);
  });
});
