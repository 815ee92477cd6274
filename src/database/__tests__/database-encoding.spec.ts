import { encodingProblem } from '../database-encoding';

const utf8 = { database: 'recall_ledger', serverEncoding: 'UTF8', clientEncoding: 'UTF8' };

describe('encodingProblem (R-LG-2: characters, not bytes)', () => {
  it('R-LG-2 accepts a UTF8 database with a UTF8 connection', () => {
    expect(encodingProblem(utf8, { external: true })).toBeUndefined();
    expect(encodingProblem(utf8, { embeddedDir: '.data/pg' })).toBeUndefined();
  });

  it('R-LG-2 refuses a SQL_ASCII embedded folder, naming the database and the folder to recreate', () => {
    const problem = encodingProblem({ ...utf8, serverEncoding: 'SQL_ASCII' }, { embeddedDir: '.data/pg' });
    expect(problem).toContain('database "recall_ledger" uses encoding SQL_ASCII, but recall-ledger needs UTF8');
    expect(problem).toContain('remove .data/pg and start again');
  });

  it('R-LG-2 refuses an external LATIN1 database and says how to create a UTF8 one', () => {
    const problem = encodingProblem({ ...utf8, database: 'prod', serverEncoding: 'LATIN1' }, { external: true });
    expect(problem).toContain('database "prod" uses encoding LATIN1');
    expect(problem).toContain("point DATABASE_URL at a UTF8 database, e.g. CREATE DATABASE prod_utf8 ENCODING 'UTF8'");
  });

  it('R-LG-2 refuses a connection whose client_encoding is not UTF8', () => {
    const problem = encodingProblem({ ...utf8, clientEncoding: 'LATIN1' }, { external: true });
    expect(problem).toContain('client_encoding LATIN1');
    expect(problem).toContain('RESET client_encoding');
  });
});
