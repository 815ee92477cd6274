import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printApiSchema } from '../api-schema';

describe('schema.gql', () => {
  it('R-OP-4 the committed schema.gql matches the resolvers (run npm run schema:generate)', async () => {
    const committed = readFileSync(join(__dirname, '..', '..', 'schema.gql'), 'utf8');
    expect(committed).toBe(await printApiSchema());
  });
});
