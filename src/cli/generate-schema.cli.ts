// Writes schema.gql from the resolvers. CI runs it and fails when the committed file differs.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { printApiSchema } from '../api-schema';

printApiSchema()
  .then((text) => {
    writeFileSync(resolve(__dirname, '..', '..', 'schema.gql'), text);
    process.stdout.write('schema.gql written\n');
  })
  .catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
