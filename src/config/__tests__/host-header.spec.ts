import { formatHost, parseHost } from '../host-header';

describe('R-MCP-1 the Host header, read strictly (RFC 9110 §7.2, RFC 3986 host and port)', () => {
  it.each([
    ['localhost', { hostname: 'localhost' }],
    ['LOCALHOST:3000', { hostname: 'localhost', port: 3000 }],
    ['Recall.Example.com', { hostname: 'recall.example.com' }],
    ['my-service_1.internal:65535', { hostname: 'my-service_1.internal', port: 65535 }],
    ['127.0.0.1:1', { hostname: '127.0.0.1', port: 1 }],
    ['[::1]:8080', { hostname: '[::1]', port: 8080 }],
    ['[0:0:0:0:0:0:0:1]', { hostname: '[::1]' }],
    ['[FE80::A]', { hostname: '[fe80::a]' }],
  ])('reads %s', (value, parsed) => {
    expect(parseHost(value)).toEqual(parsed);
  });

  it.each([
    ['a backslash a URL parser turns into a slash', 'allowed.example\\@evil.example'],
    ['userinfo', 'user@allowed.example'],
    ['userinfo with a password', 'user:pw@allowed.example'],
    ['a path', 'allowed.example/evil'],
    ['a space', 'allowed.example evil'],
    ['a percent-encoding', 'allowed%2eexample'],
    ['a query', 'allowed.example?x'],
    ['an empty value', ''],
    ['an empty label', 'allowed..example'],
    ['a leading dot', '.allowed.example'],
    ['an empty port', 'allowed.example:'],
    ['port 0', 'allowed.example:0'],
    ['a port over 65535', 'allowed.example:65536'],
    ['a six-digit port', 'allowed.example:000080'],
    ['two ports', 'allowed.example:80:81'],
    ['a bare IPv6 address', '::1'],
    ['an IPv6 zone', '[fe80::1%25eth0]'],
    ['not an IPv6 address in brackets', '[1:2:3]'],
    ['an IPv4 address out of range', '256.0.0.1'],
    ['a short IPv4 form', '127.1'],
    ['a non-ASCII name', 'bücher.example'],
    ['a name longer than DNS allows', `${'a.'.repeat(127)}example`],
  ])('refuses %s', (_label, value) => {
    expect(parseHost(value)).toBeNull();
  });

  it('writes the host back as a URL does: the scheme’s default port left out', () => {
    expect(formatHost({ hostname: 'localhost', port: 3000 }, 'http')).toBe('localhost:3000');
    expect(formatHost({ hostname: 'localhost', port: 80 }, 'http')).toBe('localhost');
    expect(formatHost({ hostname: 'localhost', port: 443 }, 'http')).toBe('localhost:443');
    expect(formatHost({ hostname: '[::1]', port: 443 }, 'https')).toBe('[::1]');
    expect(formatHost({ hostname: 'recall.example.com' }, 'https')).toBe('recall.example.com');
  });
});
