import { withMissedCalls } from '../../bench/neighbours/missed-calls';

describe('hostile-neighbour bench: latencies corrected for coordinated omission', () => {
  it('counts the calls a paced client missed while one answer took long', () => {
    expect(withMissedCalls(1000, 200)).toEqual([1000, 800, 600, 400, 200]);
    expect(withMissedCalls(450, 200)).toEqual([450, 250]);
  });

  it('counts an answer within the interval, or of an unpaced client, once', () => {
    expect(withMissedCalls(150, 200)).toEqual([150]);
    expect(withMissedCalls(5000, undefined)).toEqual([5000]);
  });
});
