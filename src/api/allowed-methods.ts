import { METHODS } from 'node:http';

/** The parts of an Express 5 router layer read here (`router` package: `route.methods`, `matchers`). */
interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  matchers?: Array<(path: string) => unknown>;
}

/**
 * The methods the app's routes answer on `path`, upper-case and sorted (HEAD wherever GET is): what a 405's
 * `Allow` header lists. Empty when no route matches the path (a 404). Reads the Express app's router; its
 * layers' `matchers` are pure functions of the path. A route on every method (middleware Nest mounts as a route
 * on `/{*path}`) is not an endpoint and says nothing about what the path allows.
 */
export function allowedMethods(app: unknown, path: string): string[] {
  const stack = (app as { router?: { stack?: RouterLayer[] } } | undefined)?.router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.matchers?.some((match) => match(path))) continue;
    if (layer.route.methods._all || METHODS.every((m) => layer.route!.methods[m.toLowerCase()])) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
