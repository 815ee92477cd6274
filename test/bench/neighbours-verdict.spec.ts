import { aloneVerdict, bystanderVerdict, responseBytesVerdict, sharedVerdict } from '../../bench/neighbours/verdict';

describe('hostile-neighbour bench: verdict lines', () => {
  it("R-TN-10 holds another team's { me } p95 under 250 ms", () => {
    expect(bystanderVerdict(249.9, 0)).toEqual({ met: true, line: 'team A { me } p95 249.9 ms < 250 ms' });
    expect(bystanderVerdict(250, 0).met).toBe(false);
    expect(bystanderVerdict(Number.NaN, 0)).toEqual({ met: false, line: 'team A { me } p95 none answered ≥ 250 ms' });
  });

  it('R-TN-10 misses on any server error, whatever the latency', () => {
    const verdict = bystanderVerdict(3, 2);
    expect(verdict.met).toBe(false);
    expect(verdict.line).toMatch(/^2 answer\(s\) were server errors \(500\)/);
  });

  it('R-TN-10 holds every response within the byte budget', () => {
    expect(responseBytesVerdict(16, 16, 0).met).toBe(true);
    expect(responseBytesVerdict(40_800_392, 16_777_216, 0)).toEqual({
      met: false,
      line: 'largest response 40,800,392 bytes > budget 16,777,216 bytes',
    });
  });

  it('R-TN-11 allows a team alone at most 1% of 429s', () => {
    expect(aloneVerdict(0, 5000, 0).met).toBe(true);
    expect(aloneVerdict(50, 5000, 0).met).toBe(true);
    expect(aloneVerdict(51, 5000, 0).met).toBe(false);
    expect(aloneVerdict(0, 0, 0).met).toBe(false);
  });

  it('R-TN-11 wants about half each for two floods, and the third team within 2× its idle p95', () => {
    const fair = { servedB: 550, servedD: 450, thirdP95Ms: 40, thirdIdleP95Ms: 20, serverErrors: 0 };
    expect(sharedVerdict(fair).met).toBe(true);
    expect(sharedVerdict({ ...fair, servedB: 610, servedD: 390 }).met).toBe(false);
    expect(sharedVerdict({ ...fair, thirdP95Ms: 40.1 }).met).toBe(false);
    expect(sharedVerdict({ ...fair, servedB: 0, servedD: 0 }).met).toBe(false);
  });
});
