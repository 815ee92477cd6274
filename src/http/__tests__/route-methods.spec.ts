import { routeKey, routeMethods, type RouterLayer } from '../route-methods';

const route = (path: string, ...methods: string[]): RouterLayer => ({ route: { path, stack: methods.map((method) => ({ method })) } });

describe('R-OP-4 the methods each path answers, read from the registered routes', () => {
  it('collects each fixed route path with its methods; a GET route answers HEAD too', () => {
    const methods = routeMethods([route('/health', 'get'), route('/mcp', 'post'), route('/mcp', 'get', 'delete'), { route: undefined }]);
    expect(Object.fromEntries(methods)).toEqual({ '/health': ['GET', 'HEAD'], '/mcp': ['DELETE', 'GET', 'HEAD', 'POST'] });
  });

  it("leaves out a route with a wildcard or parameter: Nest's `forRoutes('*')` middleware must not make every path known", () => {
    const methods = routeMethods([route('/{*all}', 'get', 'post', 'put'), route('/items/:id', 'get'), route('/metrics', 'get')]);
    expect([...methods.keys()]).toEqual(['/metrics']);
  });

  it('adds the mounts the caller names, as given (Apollo answers HEAD with a 405)', () => {
    expect(routeMethods([], { '/graphql': ['GET', 'POST'] }).get('/graphql')).toEqual(['GET', 'POST']);
  });

  it.each([
    ['/Health/', '/health'],
    ['/health', '/health'],
    ['/', '/'],
    ['/.well-known/oauth-protected-resource/', '/.well-known/oauth-protected-resource'],
  ])('looks %s up as %s, as Express matches it', (path, key) => {
    expect(routeKey(path)).toBe(key);
  });
});
