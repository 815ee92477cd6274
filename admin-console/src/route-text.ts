/** Where the console is: `#/feedback?quality=LOW`, `#/feedback/fb_…`, `#/trends`, `#/spaces`. */
export interface Route {
  path: string[];
  params: URLSearchParams;
}

/** The route of a location hash; an empty one is the feedback list. */
export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path
    .split('/')
    .filter((part) => part !== '')
    .map(decodeURIComponent);
  return { path: parts.length > 0 ? parts : ['feedback'], params: new URLSearchParams(query) };
}

/** The hash of a route; empty parameters are left out. */
export function routeHref(path: string[], params?: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) if (value !== null && value !== undefined && value !== '') query.set(key, value);
  const text = query.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${text ? `?${text}` : ''}`;
}
