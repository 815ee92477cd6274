import { ownerConnection } from '../support/test-database';

// The CI gate's own functions (scripts/database-functions.cjs), on a database migrated by the global set-up.
import { compareFunctions, migrationText, readSources } from '../../scripts/database-functions.cjs';

interface Source {
  file: string;
  statement: string;
}

/**
 * Issue 55: every database function has one source (src/<module>/sql/), the migrations make exactly
 * what the sources say, and a change to a source becomes a generated migration whose up() makes the
 * database match and whose down() puts back what was there.
 */
describe('database function sources (medium, real PostgreSQL)', () => {
  const owner = ownerConnection();
  const sources = readSources() as Source[];
  const rlEnter = (): Source => sources.find((s) => s.file === 'src/tenancy/sql/rl_enter.sql')!;

  it('R-TN-8 each of the migrated functions has one source, and each source is what the migrations made', async () => {
    expect(sources.length).toBeGreaterThanOrEqual(24);
    expect(await compareFunctions(owner.client, sources)).toEqual({ changed: [], unsourced: [] });
  });

  it('R-TN-8 a source edited without its migration is named; the generated migration applies it and goes back', async () => {
    const edited = { ...rlEnter(), statement: rlEnter().statement.replace('a tenant scope names its team', 'a tenant scope names a team') };
    const drift = await compareFunctions(owner.client, [...sources.filter((s) => s !== rlEnter()), edited]);
    expect(drift.changed.map((c: { signature: string }) => c.signature)).toEqual(['public.rl_enter(p_team uuid, p_user uuid)']);

    const { text } = migrationText('planted', drift.changed);
    const [up, down] = text.split('override down').map((part) => [...part.matchAll(/this\.addSql\(`\n([\s\S]*?)\n`\);/g)].map((m) => m[1]));
    expect(up).toHaveLength(1);
    try {
      await owner.client.query(up[0]);
      expect(await compareFunctions(owner.client, [...sources.filter((s) => s !== rlEnter()), edited])).toEqual({
        changed: [],
        unsourced: [],
      });
      await owner.client.query(down[0]);
      expect(await compareFunctions(owner.client, sources)).toEqual({ changed: [], unsourced: [] });
    } finally {
      await owner.client.query(rlEnter().statement);
    }
  });

  it('R-TN-8 a function no source defines is named, and so is a source of a function no migration made', async () => {
    const others = sources.filter((s) => s !== rlEnter());
    expect(await compareFunctions(owner.client, others)).toEqual({ changed: [], unsourced: ['public.rl_enter(p_team uuid, p_user uuid)'] });
    const planted = {
      file: 'src/tenancy/sql/planted.sql',
      statement: 'create or replace function public.planted() returns int language sql as $$ select 1 $$;',
    };
    const drift = await compareFunctions(owner.client, [...sources, planted]);
    expect(drift.changed).toMatchObject([{ file: planted.file, signature: 'public.planted()', previous: null }]);
    expect(migrationText('planted', drift.changed).text).toContain("this.addSql('drop function public.planted();');");
  });
});
