import { buildSchema, type FragmentDefinitionNode, GraphQLError, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { checkPayloadValues, countPayloadValues, type PayloadSelections } from '../payload-values';

const schema = buildSchema(`
  scalar JSON
  type Snapshot { id: ID!, toolInput: JSON!, toolOutput: JSON! }
  type Edge { node: Snapshot! }
  type Connection { edges: [Edge!]! }
  type Hit { snapshot: Snapshot }
  type Result { results: [Hit!]! }
  input Item { name: String! }
  type Recorded { snapshots: [Snapshot!]! }
  type Query {
    history(first: Int = 20): Connection!
    prior(limit: Int = 1): [Snapshot!]!
    search(limit: Int = 5): Result!
    one(id: ID!): Snapshot
  }
  type Mutation { record(input: [Item!]!): Recorded! }
`);

const selections: PayloadSelections = {
  payloadFields: ['Snapshot.toolInput', 'Snapshot.toolOutput'],
  listSizes: { 'Query.history': 'first', 'Query.prior': 'limit', 'Query.search': 'limit', 'Mutation.record': 'input' },
};

function count(source: string, variables: Record<string, unknown> = {}): number {
  const { operation, fragments } = documentOf(source);
  return countPayloadValues(schema, operation, fragments, variables, selections);
}

function documentOf(source: string) {
  const document = parse(source);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return { operation, fragments };
}

describe('payload values of an operation', () => {
  it('R-OP-5 counts list size × payload fields, summed over aliases', () => {
    expect(count('{ history(first: 100) { edges { node { toolOutput } } } }')).toBe(100);
    expect(
      count(
        '{ a: history(first: 100) { edges { node { toolOutput } } } b: history(first: 100) { edges { node { toolOutput toolInput } } } }',
      ),
    ).toBe(300);
    expect(count('{ history(first: 10) { edges { node { id } } } }')).toBe(0);
    expect(count('{ one(id: "x") { toolInput toolOutput } }')).toBe(2);
  });

  it('R-OP-5 an argument left out counts as its default; a variable as its value; a list argument as its length', () => {
    expect(count('{ history { edges { node { toolOutput } } } prior { toolOutput } search { results { snapshot { toolOutput } } } }')).toBe(
      20 + 1 + 5,
    );
    expect(count('query($n: Int) { prior(limit: $n) { toolOutput } }', { n: 40 })).toBe(40);
    expect(count('query($n: Int) { prior(limit: $n) { toolOutput } }')).toBe(1);
    expect(count('mutation($i: [Item!]!) { record(input: $i) { snapshots { toolOutput } } }', { i: [{ name: 'a' }, { name: 'b' }] })).toBe(
      2,
    );
  });

  it('R-OP-5 fragments and inline fragments count, each spread as many times as it is used', () => {
    const source = `
      query { a: history(first: 50) { ...Page } b: history(first: 50) { ...Page } }
      fragment Page on Connection { edges { node { ... on Snapshot { ...Payload } } } }
      fragment Payload on Snapshot { toolOutput toolInput }`;
    expect(count(source)).toBe(200);
  });

  it('R-OP-5 nested fragment spreads are counted without expanding them (linear in the document)', () => {
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1
        ? `fragment F${i} on Snapshot { toolOutput }`
        : `fragment F${i} on Snapshot { ...F${i + 1} ... on Snapshot { ...F${i + 1} } }`,
    ).join('\n');
    expect(count(`{ one(id: "x") { ...F0 } }\n${fragments}`)).toBe(2 ** (levels - 1));
  });

  it('R-OP-5 over the bound: RESPONSE_TOO_LARGE naming GRAPHQL_MAX_PAYLOAD_VALUES, with the count and what to change', () => {
    const { operation, fragments } = documentOf(
      '{ a: history(first: 100) { edges { node { toolOutput } } } b: history(first: 100) { edges { node { toolOutput } } } c: history(first: 100) { edges { node { toolOutput } } } }',
    );
    let thrown: unknown;
    try {
      checkPayloadValues(schema, operation, fragments, {}, selections, 200);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GraphQLError);
    expect((thrown as GraphQLError).extensions).toEqual({
      code: 'RESPONSE_TOO_LARGE',
      limit: 'GRAPHQL_MAX_PAYLOAD_VALUES',
      maxValues: 200,
      requestedValues: 300,
      http: { status: 200 },
    });
    expect((thrown as GraphQLError).message).toMatch(/fewer items .*fewer aliases.*leave out toolOutput/);
    expect(() => checkPayloadValues(schema, operation, fragments, {}, selections, 300)).not.toThrow();
  });
});
