import { buildSchema } from 'graphql';
import { checkContract, missingContract, parsePending } from '../contract-check';

const contract = buildSchema(`
  type Query { me: String!, later: Later }
  type Later { name: String! }
`);

describe('contract check', () => {
  it('R-OP-4 reports an operation missing from the schema unless it is pending', () => {
    const schema = buildSchema('type Query { me: String! }');
    expect(checkContract(contract, schema, '').breaking).toEqual(['Later was removed.', 'Query.later was removed.']);
    expect(checkContract(contract, schema, 'Query.later\nLater # later issue').breaking).toEqual([]);
  });

  it('R-OP-4 a changed type is breaking and a pending line that matches nothing is stale', () => {
    const schema = buildSchema('type Query { me: Int!, later: Later } type Later { name: String! }');
    const result = checkContract(contract, schema, 'Query.later');
    expect(result.breaking).toEqual(['Query.me changed type from String! to Int!.']);
    expect(result.stalePending).toEqual(['Query.later']);
  });

  it('R-OP-4 pending lines ignore comments and blanks', () => {
    expect(parsePending('# head\n\nQuery.a  # why\n  B\n')).toEqual(['Query.a', 'B']);
  });

  it('R-OP-4 without its contract file the check says it did not run, where it looked and how to name one; it fails only when required (CI)', () => {
    const local = missingContract('/elsewhere/contract.graphql', false);
    expect(local.exitCode).toBe(0);
    expect(local.message).toContain('DID NOT RUN');
    expect(local.message).toContain('/elsewhere/contract.graphql');
    expect(local.message).toContain('--contract');
    const required = missingContract('/elsewhere/contract.graphql', true);
    expect(required.exitCode).toBe(1);
    expect(required.message).toContain('DID NOT RUN');
  });
});
