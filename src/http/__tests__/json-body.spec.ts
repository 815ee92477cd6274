import { MAX_BODY_NESTING } from '../json-nesting';
import { PARSED_AT_ONCE_MAX_STRUCTURE, parseJsonBody } from '../json-body';

const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');

/** A GraphQL body whose variables hold `count` small objects: far more structure than is parsed at once. */
function manyObjects(count: number, make: (i: number) => unknown = () => ({})): unknown {
  return { query: 'mutation($x: JSON!) { f(x: $x) }', variables: { x: Array.from({ length: count }, (_, i) => make(i)) } };
}

async function refusal(body: Buffer): Promise<Error & { status?: number; type?: string }> {
  try {
    await parseJsonBody(body);
  } catch (error) {
    return error as Error & { status?: number; type?: string };
  }
  throw new Error('the body was accepted');
}

describe('parseJsonBody: a long body parsed without holding the event loop (R-TN-10)', () => {
  it('R-TN-10 R-OP-4 a body of many objects, parsed in slices, is what JSON.parse makes of it', async () => {
    const value = manyObjects(15_000, (i) => ({
      id: i,
      n: -i / 7,
      big: 2 ** 60,
      text: `日本語🙂 "quoted" \\ back\u0001slash ${'é'.repeat(i % 40)}`,
      nested: [[{ k: null, t: true, f: false }]],
      ['__proto__']: { polluted: i },
    }));
    const body = bytes(value);
    expect(body.length).toBeGreaterThan(40 * 32 * 1024); // many slices, multi-byte characters across their edges
    const parsed = (await parseJsonBody(body)) as { variables: { x: Record<string, unknown>[] } };
    expect(parsed).toEqual(JSON.parse(body.toString('utf8')));
    // A `__proto__` key is an own property, as JSON.parse makes it, not the object's prototype.
    expect(Object.getPrototypeOf(parsed.variables.x[3])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed.variables.x[3], '__proto__')?.value).toEqual({ polluted: 3 });
  });

  it('R-TN-10 other requests run while a body of millions of small objects is parsed: the loop turns between slices', async () => {
    const body = bytes(manyObjects(300_000));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      await parseJsonBody(body);
    } finally {
      clearInterval(ticker);
    }
    // JSON.parse at once would let the timer run at most once; each slice of 32 KiB gives it a turn.
    expect(turns).toBeGreaterThan(20);
  });

  it('R-TN-10 a long body with little structure (long strings) is parsed at once, and is the same', async () => {
    const value = { query: '{ me { userId } }', variables: { text: 'plain words '.repeat(200_000), other: 'x\u0001"'.repeat(1000) } };
    expect(await parseJsonBody(bytes(value))).toEqual(value);
    expect(PARSED_AT_ONCE_MAX_STRUCTURE).toBeGreaterThan(10);
  });

  it('R-OP-4 what is not JSON is a 400 the edge reads as a parse failure, naming the position, in either way of parsing', async () => {
    const whole = bytes(manyObjects(100_000));
    const sliced = Buffer.concat([whole.subarray(0, 200_000), bytes('}}}'), whole.subarray(200_000)]);
    const slicedError = await refusal(sliced);
    expect(slicedError).toMatchObject({ status: 400, type: 'entity.parse.failed' });
    // The slice the fault is in (the parser names the token, not always its byte).
    const from = Number(/position (\d+)/.exec(slicedError.message)?.[1]);
    expect(from).toBeLessThanOrEqual(200_000);
    expect(from).toBeGreaterThan(200_000 - 32 * 1024);

    const truncated = whole.subarray(0, whole.length - 10);
    expect(await refusal(truncated)).toMatchObject({ status: 400, type: 'entity.parse.failed' });

    const atOnce = await refusal(bytes(`{"query": "${'a'.repeat(100_000)}", }`));
    expect(atOnce).toMatchObject({ status: 400, type: 'entity.parse.failed' });
  });

  it('R-OP-4 trailing whitespace is JSON; anything after the value is not', async () => {
    const body = bytes(manyObjects(100_000));
    expect(await parseJsonBody(Buffer.concat([body, bytes(' \n\t ')]))).toEqual(JSON.parse(body.toString('utf8')));
    expect(await refusal(Buffer.concat([body, bytes(' {}')]))).toMatchObject({ status: 400, type: 'entity.parse.failed' });
  });

  it('R-OP-4 only an object or an array (body-parser strict), and an empty body is an empty object', async () => {
    const refused = await refusal(bytes(`  "${'a'.repeat(100_000)}"`));
    expect(refused).toMatchObject({ status: 400, type: 'entity.parse.failed' });
    expect(refused.message).toContain('position 2: a JSON object or array is expected');
    expect(await parseJsonBody(Buffer.alloc(0))).toEqual({});
  });

  it('R-TN-10 a body nested past MAX_BODY_NESTING is refused with the byte where, before any parse', async () => {
    const deep = Buffer.concat([bytes(`{"variables": [${'{},'.repeat(50_000)}`), bytes('['.repeat(MAX_BODY_NESTING + 10))]);
    const refused = await refusal(deep);
    expect(refused).toMatchObject({ status: 400, type: 'entity.too.deep' });
    expect(refused.message).toContain(`at byte ${15 + 3 * 50_000 + MAX_BODY_NESTING - 2}`);
  });
});
