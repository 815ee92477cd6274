/**
 * Which methods each fixed path answers, for the edge's 405 (with `Allow`). Derived from the
 * routes the app registered rather than kept as a table here: Nest turns every controller method
 * into an Express route (path and method) during `app.init()`, so a new controller is covered
 * without an edit, and a path missing from the map is never refused — it goes on to routing.
 * Mounts (`app.use`) carry no method, so the ones that answer every method themselves
 * (Apollo at /graphql) are named by the caller.
 */
export type RouteMethods = ReadonlyMap<string, readonly string[]>;

/** What this reads of an Express 5 router layer: a route's path and the method of each of its handlers. */
export interface RouterLayer {
  readonly route?: { readonly path: string; readonly stack: readonly { readonly method?: string }[] };
}

/**
 * A route path with a parameter or wildcard (Nest's `forRoutes('*')` middleware registers
 * `/{*all}` for every method) is no single path: left out, so it neither widens nor narrows a path's methods.
 */
const PATTERN = /[:*{}()?+]/;

/** Express matches paths case-insensitively and ignores one trailing slash (its defaults, which the app keeps). */
export function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

export function routeMethods(stack: readonly RouterLayer[], mounts: Readonly<Record<string, readonly string[]>> = {}): RouteMethods {
  const methods = new Map<string, Set<string>>();
  const add = (path: string, method: string) => {
    const key = routeKey(path);
    methods.set(key, (methods.get(key) ?? new Set()).add(method.toUpperCase()));
  };
  for (const { route } of stack) {
    if (!route || PATTERN.test(route.path)) continue;
    for (const { method } of route.stack) {
      if (!method) continue;
      add(route.path, method);
      // Express answers HEAD with a GET handler.
      if (method.toLowerCase() === 'get') add(route.path, 'HEAD');
    }
  }
  for (const [path, list] of Object.entries(mounts)) for (const method of list) add(path, method);
  return new Map([...methods].map(([path, set]) => [path, [...set].sort()]));
}
