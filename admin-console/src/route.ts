import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './route-text';

export { routeHref } from './route-text';

/** The route of the page's hash, kept current as it changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
