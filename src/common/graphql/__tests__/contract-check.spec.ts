import { buildSchema } from 'graphql';
import { checkContract, parsePending } from '../contract-check';

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
});
