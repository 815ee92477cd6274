import { ownerConnection } from '../support/test-database';

/**
 * Issue 40: under row-level security an operator that is not leakproof must wait for the policy's
 * clauses, so it can never be an index condition for the request role, while the owner's plan
 * (policy `using (true)`) uses the index. Recall search fell into that (`@@`, 3.5× raw). Read from
 * the catalog: every operator an index of a table under row-level security could search with, and
 * whether its function is leakproof. The only index that needs a non-leakproof operator is the
 * full-text one, which only the owner-run `tool_results_search` reads (docs/tenancy.md).
 */

/** Indexes the request role never reads directly, each with the function that reads it as the owner. */
const OWNER_READ_INDEXES: Record<string, string> = {
  message_tool_results_user_search: 'tool_results_search',
};

describe('Index operators under row-level security (issue 40)', () => {
  const conn = ownerConnection();

  it('R-TN-8 §9 every index of a table under row-level security searches with leakproof operators only, but the full-text index the owner-run search reads', async () => {
    const { rows } = await conn.client.query<{ index: string; operator: string }>(
      `select distinct i.relname as index, o.oprname || '(' || format_type(o.oprleft, null) || ', ' || format_type(o.oprright, null) || ')' as operator
         from pg_index x
         join pg_class t on t.oid = x.indrelid and t.relrowsecurity
         join pg_class i on i.oid = x.indexrelid
         cross join lateral unnest(x.indclass::oid[]) as k(opclass)
         join pg_opclass c on c.oid = k.opclass
         join pg_am m on m.oid = c.opcmethod
         -- A btree family also holds cross-type operators (timestamptz against date), which may
         -- raise and are not leakproof; the statements compare a column with a value of its type.
         join pg_amop a on a.amopfamily = c.opcfamily and a.amoppurpose = 's' and a.amoplefttype = c.opcintype
                       and (a.amoprighttype = c.opcintype or m.amname <> 'btree')
         join pg_operator o on o.oid = a.amopopr
         join pg_proc p on p.oid = o.oprcode
        where not p.proleakproof
        order by 1, 2`,
    );
    expect([...new Set(rows.map((row) => row.index))].sort()).toEqual(Object.keys(OWNER_READ_INDEXES).sort());
    // The full-text operators are the ones held back (so the check reads the right rows).
    expect(rows).toContainEqual({ index: 'message_tool_results_user_search', operator: '@@(tsvector, tsquery)' });
  });

  it('R-TN-8 each index read only by the owner is read through a SECURITY DEFINER function the request role may execute', async () => {
    for (const [index, fn] of Object.entries(OWNER_READ_INDEXES)) {
      const { rows } = await conn.client.query<{ definer: boolean; executable: boolean }>(
        `select p.prosecdef as definer, has_function_privilege('recall_ledger_app', p.oid, 'EXECUTE') as executable
           from pg_proc p where p.proname = $1`,
        [fn],
      );
      expect({ index, fn, rows }).toEqual({ index, fn, rows: [{ definer: true, executable: true }] });
    }
  });
});
