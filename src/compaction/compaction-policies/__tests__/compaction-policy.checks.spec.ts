import { AppError, ErrorCode } from '../../../common/errors/app-error';
import {
  checkCompactionPolicy,
  checkPolicyToolName,
  MAX_POLICIES_PER_TEAM,
  MAX_POLICY_KEEP_LAST_N,
  MAX_POLICY_SIZE_THRESHOLD,
  policyLimitError,
} from '../compaction-policy.checks';

/** The refusal `work` throws, as a client sees it (code, field, message). */
function refusal(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, field: error.details.field, message: error.message } : error;
  }
  return 'no error';
}

const badInput = (field: string, message: string | RegExp) => ({
  code: ErrorCode.BAD_USER_INPUT,
  field,
  message: typeof message === 'string' ? message : expect.stringMatching(message),
});

describe('checkCompactionPolicy', () => {
  it('R-LG-4 the limits are those documented', () => {
    expect({ MAX_POLICIES_PER_TEAM, MAX_POLICY_KEEP_LAST_N, MAX_POLICY_SIZE_THRESHOLD }).toEqual({
      MAX_POLICIES_PER_TEAM: 100,
      MAX_POLICY_KEEP_LAST_N: 1000,
      MAX_POLICY_SIZE_THRESHOLD: 10_000_000,
    });
  });

  it('R-LG-4 a policy stores what it gives, unset flags as false and unset numbers as null (absent and null alike)', () => {
    expect(checkCompactionPolicy('search_orders', { keepLastN: 1 })).toEqual({
      toolName: 'search_orders',
      neverCompact: false,
      keepLastN: 1,
      sizeThreshold: null,
      clearInputs: false,
    });
    expect(checkCompactionPolicy('t', { neverCompact: null, keepLastN: null, sizeThreshold: 500, clearInputs: true })).toEqual({
      toolName: 't',
      neverCompact: false,
      keepLastN: null,
      sizeThreshold: 500,
      clearInputs: true,
    });
    expect(checkCompactionPolicy('t', { neverCompact: true })).toEqual({
      toolName: 't',
      neverCompact: true,
      keepLastN: null,
      sizeThreshold: null,
      clearInputs: false,
    });
    // neverCompact with settings that do nothing is no contradiction.
    expect(checkCompactionPolicy('t', { neverCompact: true, clearInputs: false, keepLastN: null })).toMatchObject({ neverCompact: true });
    expect(checkCompactionPolicy('t', { neverCompact: false, keepLastN: 0, sizeThreshold: 1 })).toMatchObject({
      keepLastN: 0,
      sizeThreshold: 1,
    });
  });

  it('R-LG-4 the bounds are inclusive: keepLastN 0..1000, sizeThreshold 1..10,000,000', () => {
    expect(checkCompactionPolicy('t', { keepLastN: 0 }).keepLastN).toBe(0);
    expect(checkCompactionPolicy('t', { keepLastN: 1000 }).keepLastN).toBe(1000);
    expect(checkCompactionPolicy('t', { sizeThreshold: 1 }).sizeThreshold).toBe(1);
    expect(checkCompactionPolicy('t', { sizeThreshold: 10_000_000 }).sizeThreshold).toBe(10_000_000);
    for (const keepLastN of [-1, 1001, 1.5, Number.NaN]) {
      expect(refusal(() => checkCompactionPolicy('t', { keepLastN }))).toEqual(
        badInput('policy.keepLastN', `policy.keepLastN must be a whole number from 0 to 1,000; got ${keepLastN}.`),
      );
    }
    for (const sizeThreshold of [0, -5, 10_000_001, 2.5]) {
      expect(refusal(() => checkCompactionPolicy('t', { sizeThreshold }))).toEqual(
        badInput('policy.sizeThreshold', `policy.sizeThreshold must be a whole number from 1 to 10,000,000; got ${sizeThreshold}.`),
      );
    }
  });

  it('R-LG-4 a policy that sets nothing is refused, naming the settings to give', () => {
    for (const settings of [{}, { neverCompact: null, keepLastN: null, sizeThreshold: null, clearInputs: null }]) {
      expect(refusal(() => checkCompactionPolicy('t', settings))).toEqual(
        badInput('policy', 'policy sets nothing; give at least one of neverCompact, keepLastN, sizeThreshold, clearInputs.'),
      );
    }
  });

  it('R-LG-4 neverCompact with keepLastN, sizeThreshold or clearInputs is contradictory: the refusal names them and what to change', () => {
    expect(refusal(() => checkCompactionPolicy('search_orders', { neverCompact: true, keepLastN: 2 }))).toEqual(
      badInput(
        'policy.keepLastN',
        'policy.neverCompact is true: every result and input of "search_orders" stays as it is, so keepLastN would never apply; ' +
          'remove it, or set neverCompact to false.',
      ),
    );
    expect(refusal(() => checkCompactionPolicy('t', { neverCompact: true, sizeThreshold: 100 }))).toEqual(
      badInput('policy.sizeThreshold', /so sizeThreshold would never apply; remove it, or set neverCompact to false\.$/),
    );
    expect(refusal(() => checkCompactionPolicy('t', { neverCompact: true, clearInputs: true }))).toEqual(
      badInput('policy.clearInputs', /so clearInputs would never apply; remove it, or set neverCompact to false\.$/),
    );
    expect(refusal(() => checkCompactionPolicy('t', { neverCompact: true, keepLastN: 0, sizeThreshold: 100, clearInputs: true }))).toEqual(
      badInput(
        'policy.keepLastN',
        /so keepLastN, sizeThreshold, and clearInputs would never apply; remove them, or set neverCompact to false\.$/,
      ),
    );
  });

  it('R-LG-4 the tool name is 1 to 128 characters without white space, checked before the settings', () => {
    expect(checkCompactionPolicy('t'.repeat(128), { keepLastN: 1 }).toolName).toBe('t'.repeat(128));
    const shape = 'toolName must be 1 to 128 characters without white space, as recordToolResults takes it.';
    for (const name of ['', 't'.repeat(129), 'search orders', 'tab\tname', 'line\n']) {
      expect(refusal(() => checkCompactionPolicy(name, {}))).toEqual(badInput('toolName', shape));
      expect(refusal(() => checkPolicyToolName(name))).toEqual(badInput('toolName', shape));
    }
    expect(refusal(() => checkPolicyToolName('nul\u0000'))).toEqual(
      badInput('toolName', 'toolName contains a NUL character or an unpaired surrogate; remove it.'),
    );
    expect(refusal(() => checkPolicyToolName('search_orders'))).toBe('no error');
  });

  it('R-LG-4 the limit refusal says there are 100 and how to make room', () => {
    expect(
      refusal(() => {
        throw policyLimitError('new_tool');
      }),
    ).toEqual(
      badInput(
        'toolName',
        'The team already has compaction policies for 100 tools, the limit; delete one (deleteToolCompactionPolicy) before adding a policy for "new_tool".',
      ),
    );
  });
});
