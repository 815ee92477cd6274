import { hostRefusal, originRefusal } from '../allowed-origins';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

describe('R-MCP-1 allowed hosts and origins', () => {
  it.each(['localhost', 'localhost:3000', '127.0.0.1:54321', '[::1]:8080', 'LOCALHOST:1'])(
    'accepts the loopback Host %s on any port',
    (host) => {
      expect(hostRefusal(host, LOOPBACK)).toBeNull();
    },
  );

  it.each([
    ['a rebound name', 'evil.example.com'],
    ['a rebound name with a port', 'evil.example.com:3000'],
    ['a name that only starts like localhost', 'localhost.evil.example.com'],
  ])('refuses %s as Host, saying what to change', (_label, host) => {
    expect(hostRefusal(host, LOOPBACK)).toMatch(/not one this service answers as .* ALLOWED_HOSTS or PUBLIC_URL/);
  });

  it.each([
    ['a backslash before userinfo (a URL parser reads the allowed name)', 'localhost\\@evil.example.com'],
    ['userinfo', 'evil.example.com@localhost'],
    ['a path', 'localhost/evil'],
    ['a space', 'a b'],
    ['a port out of range', 'localhost:70000'],
  ])('refuses %s in the Host even when the name part is allowed, and under "*"', (_label, host) => {
    expect(hostRefusal(host, LOOPBACK)).toMatch(/is not a host name with an optional port/);
    expect(hostRefusal(host, '*')).toMatch(/is not a host name with an optional port/);
  });

  it('refuses a request without a Host, or with several; "*" switches the name check off', () => {
    expect(hostRefusal(undefined, LOOPBACK)).toMatch(/no Host header/);
    expect(hostRefusal([], LOOPBACK)).toMatch(/no Host header/);
    expect(hostRefusal(['localhost', 'evil.example.com'], LOOPBACK)).toMatch(/more than one Host header/);
    expect(hostRefusal(['localhost', 'localhost'], '*')).toMatch(/more than one Host header/);
    expect(hostRefusal(['localhost:3000'], LOOPBACK)).toBeNull();
    expect(hostRefusal('anything.example', '*')).toBeNull();
  });

  it('cuts a long header value short in the message', () => {
    expect(hostRefusal(`${'x'.repeat(300)}.example`, LOOPBACK)!.length).toBeLessThan(300);
  });

  it('lets requests without an Origin through (non-browser clients)', () => {
    expect(originRefusal(undefined, LOOPBACK, [])).toBeNull();
  });

  it.each(['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:3000'])(
    'accepts the page origin %s of an allowed host, any port',
    (origin) => {
      expect(originRefusal(origin, LOOPBACK, [])).toBeNull();
    },
  );

  it.each(['http://evil.example.com', 'null', 'file:///etc/passwd', 'chrome-extension://abc', 'ftp://localhost', 'not a url'])(
    'refuses the Origin %s',
    (origin) => {
      expect(originRefusal(origin, LOOPBACK, [])).toMatch(/may not call this API.*ALLOWED_ORIGINS/);
    },
  );

  it('accepts a listed origin exactly (scheme, host and port), or any with "*"', () => {
    const listed = ['https://app.example.com'];
    expect(originRefusal('https://app.example.com', ['recall.example.com'], listed)).toBeNull();
    expect(originRefusal('http://app.example.com', ['recall.example.com'], listed)).not.toBeNull();
    expect(originRefusal('https://app.example.com:8443', ['recall.example.com'], listed)).not.toBeNull();
    expect(originRefusal('https://anyone.example', ['recall.example.com'], '*')).toBeNull();
  });
});
