import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';

const ROOT = join(__dirname, '../..');
const OPERATIONS_DIR = join(ROOT, 'clients/typescript/operations');

/** An operation as this test compares them: its type and the root fields it selects. */
interface RootSelection {
  kind: string;
  fields: string[];
}

function rootSelections(document: DocumentNode): RootSelection[] {
  return document.definitions
    .filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => ({
      kind: operation.operation,
      fields: operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : [])),
    }));
}

/** Each `"query": "…"` JSON string of README.md's examples, unescaped, with its line. */
function readmeQueries(): { line: number; query: string }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/"query"\s*:\s*("(?:[^"\\\n]|\\.)*")/g)].map((match) => ({
    line: readme.slice(0, match.index).split('\n').length,
    query: JSON.parse(match[1]) as string,
  }));
}

function operationFiles(dir = OPERATIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return operationFiles(path);
    return entry.name.endsWith('.graphql') ? [path] : [];
  });
}

describe('typed client: operation documents (issue 23)', () => {
  const documents = operationFiles().map((path) => ({ path, document: parse(readFileSync(path, 'utf8')) }));

  it('every operation the README shows has a typed document selecting the same root fields', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const examples = readmeQueries();
    // Every `"query"` key of the README is read here: an example written another way would escape the check.
    expect(examples.length).toBe(readme.split('"query"').length - 1);
    expect(examples.length).toBeGreaterThan(0);

    const typed = documents.flatMap(({ document }) => rootSelections(document));
    const missing = examples.flatMap(({ line, query }) =>
      rootSelections(parse(query))
        .filter((wanted) => !typed.some((have) => have.kind === wanted.kind && wanted.fields.every((field) => have.fields.includes(field))))
        .map((wanted) => `README.md:${line}: ${wanted.kind} { ${wanted.fields.join(' ')} }`),
    );
    expect({ withoutTypedDocument: missing }).toEqual({ withoutTypedDocument: [] });
  });

  it('each operation file holds one named operation, named after the file (create-space.graphql: CreateSpace)', () => {
    const misnamed = documents.flatMap(({ path, document }) => {
      const names = document.definitions.map((definition) =>
        definition.kind === Kind.OPERATION_DEFINITION ? definition.name?.value : definition.kind,
      );
      const expected = basename(path, '.graphql').replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());
      return names.length === 1 && names[0] === expected
        ? []
        : [`${relative(ROOT, path)}: ${JSON.stringify(names)}, expected ["${expected}"]`];
    });
    expect(documents.length).toBeGreaterThan(0);
    expect({ misnamed }).toEqual({ misnamed: [] });
  });
});
