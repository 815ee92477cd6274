import { statementWithoutLiterals } from '../statement-text';

describe('statementWithoutLiterals (R-OP-8: statement text without values)', () => {
  it('R-OP-8 the ids a tenant scope writes into its statement are blanked, the statement kept', () => {
    const team = '1b74e2a7-d1bb-45ca-b3eb-b2ae3ea12467';
    const user = '71d08a4f-8f70-4db1-b8d8-98918bbd1f0f';
    expect(
      statementWithoutLiterals(`begin; select set_config('app.team_id', '${team}', true), set_config('app.user_id', '${user}', true)`),
    ).toBe("begin; select set_config('?', '?', true), set_config('?', '?', true)");
  });

  it('R-OP-8 a quote doubled inside a literal stays inside it; placeholders and identifiers are left as they are', () => {
    expect(statementWithoutLiterals("select 'it''s', \"col\" from t where a = $1 and b = 'x'")).toBe(
      "select '?', \"col\" from t where a = $1 and b = '?'",
    );
    const plain = 'select space_id, generation from actor_spaces($1::uuid, $2::uuid, to_timestamp($3))';
    expect(statementWithoutLiterals(plain)).toBe(plain);
  });
});
