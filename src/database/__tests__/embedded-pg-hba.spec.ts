import { scramHbaConf } from '../embedded-pg-hba';

/** The end of the pg_hba.conf initdb wrote for earlier versions (`--auth=password`), with a line of its header. */
const EARLIER = [
  '# METHOD can be "trust", "reject", "md5", "password", "scram-sha-256",',
  '# TYPE  DATABASE        USER            ADDRESS                 METHOD',
  '',
  '# "local" is for Unix domain socket connections only',
  'local   all             all                                     password',
  '# IPv4 local connections:',
  'host    all             all             127.0.0.1/32            password',
  '# IPv6 local connections:',
  'host    all             all             ::1/128                 password',
  'local   replication     all                                     password',
  'host    replication     all             127.0.0.1/32            password',
  'host    replication     all             ::1/128                 password',
  '',
].join('\n');

describe('scramHbaConf (issue 53: no cleartext password on the embedded server)', () => {
  it('R-TN-8 turns each cleartext password line of an earlier folder into scram-sha-256, keeping comments and layout', () => {
    expect(scramHbaConf(EARLIER)).toBe(
      EARLIER.replace(/(\s)password$/gm, '$1scram-sha-256'), // the rule lines only: the header's "password" stays
    );
    expect(scramHbaConf(EARLIER)?.split('\n')[0]).toBe(EARLIER.split('\n')[0]);
  });

  it('R-TN-8 leaves a file without a cleartext password line alone (undefined: nothing to write)', () => {
    const scram = scramHbaConf(EARLIER) ?? '';
    expect(scramHbaConf(scram)).toBeUndefined();
    expect(scramHbaConf('local all all peer\nhost all all 127.0.0.1/32 md5 # password, once\n')).toBeUndefined();
  });

  it('R-TN-8 reads the method where pg_hba.conf puts it: after an address and its mask, never a database or user named password', () => {
    const text = [
      'host password password 10.0.0.0 255.0.0.0 password',
      'hostssl all all samenet password clientcert=verify-full',
      'local password all trust',
      'hostnossl all password 192.168.0.0/16 reject',
    ].join('\n');
    expect(scramHbaConf(text)).toBe(
      [
        'host password password 10.0.0.0 255.0.0.0 scram-sha-256',
        'hostssl all all samenet scram-sha-256 clientcert=verify-full',
        'local password all trust',
        'hostnossl all password 192.168.0.0/16 reject',
      ].join('\n'),
    );
  });
});
