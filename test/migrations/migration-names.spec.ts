import { ormOptions } from '../../src/database/orm-options';

describe('migration names', () => {
  const options = ormOptions({ url: 'postgres://127.0.0.1/unused' });
  const fileName = options.migrations?.fileName;
  const NamingStrategy = options.namingStrategy;

  it('`npm run migration:create -- --name add-foo` names the file and its class Migration<timestamp>_add_foo', () => {
    if (!fileName || !NamingStrategy) throw new Error('ormOptions sets no migration names');

    expect(fileName('20261203120000', 'add-foo')).toBe('Migration20261203120000_add_foo');
    expect(new NamingStrategy().classToMigrationName('20261203120000', 'add-foo')).toBe('Migration20261203120000_add_foo');
  });

  it('an unnamed migration, as every existing one, is Migration<timestamp>: recorded names and their order stay', () => {
    if (!fileName || !NamingStrategy) throw new Error('ormOptions sets no migration names');

    expect(fileName('20261203120000')).toBe('Migration20261203120000');
    expect(new NamingStrategy().classToMigrationName('20261203120000')).toBe('Migration20261203120000');
    // Entities keep MikroORM's default PostgreSQL naming.
    expect(new NamingStrategy().classToTableName('MessageToolResult')).toBe('message_tool_result');
  });
});
