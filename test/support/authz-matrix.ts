import { randomUUID } from 'node:crypto';

import type { INestApplication } from '@nestjs/common';

/**
 * The authorization matrix's engine: who calls (principals), what the route table of the running app is, and how one
 * try (a case of a route's rule, as one principal) is judged — allowed or denied, and for a denied one the effect:
 * nothing leaked in the answer, nothing changed (the owned resource read back by the tenant's operator), nothing
 * of the owner's in the caller's own views afterwards.
 */

/** owner: the user that owns the resource; other: another user of its tenant; teammate: one a custom handler shares with */
export type Who = 'owner' | 'other' | 'teammate' | 'otherTenant' | 'admin' | 'apiKey' | 'none';
export const PRINCIPALS: readonly Who[] = ['owner', 'other', 'teammate', 'otherTenant', 'admin', 'apiKey', 'none'];

export interface Res {
  status: number;
  text: string;
  body: any;
}

export type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>, readMs?: number) => Promise<Res>;

/** HTTP as one principal: its headers on every request; the answer's text kept whole (SSE included). */
export function caller(base: () => string, auth: Record<string, string>): Call {
  return async (method, path, body, headers = {}, readMs) => {
    const h: Record<string, string> = { ...auth, ...headers };
    if (body !== undefined) h['content-type'] ??= 'application/json';
    const ac = new AbortController();
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: ac.signal,
    });
    const text = readMs ? await readFor(res, ac, readMs) : await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* SSE or HTML: keep the text */
    }
    return { status: res.status, text, body: parsed };
  };
}

/** What a stream that does not end by itself sends within `ms` (then the request is dropped). */
async function readFor(res: Response, ac: AbortController, ms: number): Promise<string> {
  const reader = res.body!.getReader();
  const over = new Promise<null>((resolve) => setTimeout(() => resolve(null), ms));
  let text = '';
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), over]);
      if (!next || next.done) break;
      text += Buffer.from(next.value).toString('utf8');
    }
  } finally {
    ac.abort();
    void reader.cancel().catch(() => undefined);
  }
  return text;
}

/** One service instance under test and its callers (a principal it does not have is absent). */
export interface World {
  label: string;
  /** the langgraph.json graph threads and runs use, and a node of it for state updates */
  graph: string;
  node: string;
  /** langgraph.json's custom auth decides threads here (a team shares them); the built-in rule elsewhere */
  customAuth: boolean;
  /** AUTH_USER_ISOLATION=tenant: the tenant's users share what the owner rule would confine */
  tenantShared: boolean;
  as: Partial<Record<Who, Call>>;
}

/** What a case set up, owned by `owner`: a marker only the owner's resources carry, and their ids. */
export interface Target {
  mark: string;
  /** what a listing shows of the owner's resource when it is not the marker (a store namespace's label) */
  listed?: string;
  thread?: string;
  run?: string;
  checkpoint?: string;
  assistant?: string;
  cron?: string;
  ns?: string[];
  doc?: string;
  contract?: string;
  /** the owner's user id (as `GET /v1/memories` names it) */
  user?: string;
}

export interface Request {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** a stream that does not end by itself (the thread event protocol's): read for this long */
  readMs?: number;
}

/** One try of a route: its set-up, its request (which may depend on who asks), who may, and what to check. */
export interface Case {
  name: string;
  setup?: (w: World) => Promise<Target>;
  req: (t: Target, who: Who) => Request;
  allowed: (who: Who, w: World) => boolean;
  /** what an allowed answer looks like (default: 2xx) */
  ok?: (r: Res) => boolean;
  /** what a denied answer may look like besides 401/403/404/409 with no data (an SSE stream of one error event) */
  deniedOk?: (r: Res) => boolean;
  /** the owned resource as the tenant's operator reads it: equal before and after a denied try */
  snapshot?: (t: Target, w: World) => Promise<unknown>;
  /** a listing: the owner's marker is in the answer exactly when the caller may see the owner's resource */
  visibleTo?: (who: Who, w: World) => boolean;
  /**
   * the request creates what it names when missing (an `if_exists` create, a store put): another tenant's caller
   * acts on its own tenant (ids are per tenant), so any answer but a 5xx is right for it — what is checked is that
   * nothing of the owner's is touched or shown
   */
  upsert?: boolean;
  /** whether the owned resource must stay unchanged even when the try is allowed (a refused `raise`, a stateless run) */
  noEffect?: (who: Who) => boolean;
}

/** A route of the app and its rule: the resource and action the policy decides, and the tries. */
export interface Rule {
  route: string;
  resource: string;
  action: string;
  cases: Case[];
}

/** `METHOD /path` of every route of the running app (Express's router; a route for every method is `ALL`). */
export function routeTable(app: INestApplication): string[] {
  const instance = app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
  const stack = (instance.router ?? instance._router)?.stack ?? [];
  const out = new Set<string>();
  for (const layer of stack) {
    // langgraph.json's http app sees every path that reaches it: a middleware, listed as the catch-all its rule covers
    if (layer.name === 'httpAppMiddleware') out.add('ALL /{*path}');
    if (!layer.route) continue;
    const methods = Object.keys(layer.route.methods).map((m) => m.toUpperCase());
    out.add(`${methods.length > 5 ? 'ALL' : methods.join(',')} ${layer.route.path}`);
  }
  return [...out];
}
interface Layer {
  name?: string;
  route?: { path: string; methods: Record<string, boolean> };
}

export const newMark = () => `SECRET-${randomUUID().slice(0, 8)}`;

/** The tally of a suite: tries, held, and what broke. */
export class Tally {
  tries = 0;
  held = 0;
  broken: string[] = [];
  readonly byArea = new Map<string, { tries: number; held: number }>();

  record(area: string, what: string, problems: string[]): void {
    this.tries += 1;
    const a = this.byArea.get(area) ?? { tries: 0, held: 0 };
    a.tries += 1;
    if (problems.length === 0) {
      this.held += 1;
      a.held += 1;
    } else this.broken.push(`${what}: ${problems.join('; ')}`);
    this.byArea.set(area, a);
  }

  report(label: string): string {
    const rows = [...this.byArea].map(([area, a]) => `${area} | ${a.tries} | ${a.held}`);
    return [`${label}: ${this.held}/${this.tries} held`, 'area | tries | held', ...rows, ...this.broken].join('\n');
  }
}

const DENIED = new Set([403, 404, 409]);
/** the owner and the tenant's operators see the owner's resources in their own views */
const SEES_ALL = new Set<Who>(['owner', 'admin', 'apiKey']);

/** The owner's marker in whatever the caller sees of its own afterwards: threads, assistants, crons, store. */
async function leakedInto(call: Call, mark: string, sharesThreads: boolean): Promise<string[]> {
  const views = [
    await call('POST', '/assistants/search', { limit: 1000 }),
    await call('POST', '/runs/crons/search', { limit: 1000 }),
    await call('POST', '/store/items/search', { limit: 1000 }),
  ];
  // a teammate sees the owner's threads (the custom handler shares them): those views are not a leak for it
  if (!sharesThreads) views.push(await call('POST', '/threads/search', { limit: 1000 }), await call('GET', '/v1/sessions'));
  return views
    .filter((v) => v.text.includes(mark))
    .map((v) => `the owner's data appears in the caller's own view (${v.text.slice(0, 80)})`);
}

/** One try: set up, snapshot, call as `who`, judge. Problems found (empty: it held). */
export async function judge(w: World, c: Case, who: Who): Promise<string[]> {
  const call = w.as[who]!;
  const t = c.setup ? await c.setup(w) : { mark: newMark() };
  const before = c.snapshot ? JSON.stringify(await c.snapshot(t, w)) : undefined;
  const req = c.req(t, who);
  const res = await call(req.method ?? 'GET', req.path, req.body, req.headers, req.readMs);
  const problems: string[] = [];
  const foreignUpsert = who === 'otherTenant' && c.upsert === true;
  if (res.status >= 500) problems.push(`answered ${res.status}: ${res.text.slice(0, 200)}`);
  else if (c.allowed(who, w) && !foreignUpsert) {
    if (!(c.ok ?? ((r: Res) => r.status >= 200 && r.status < 300))(res))
      problems.push(`allowed but answered ${res.status}: ${res.text.slice(0, 200)}`);
  } else {
    const refused = who === 'none' ? res.status === 401 : foreignUpsert || DENIED.has(res.status) || (c.deniedOk?.(res) ?? false);
    if (!refused) problems.push(`not refused: ${res.status} ${res.text.slice(0, 200)}`);
    if (res.text.includes(t.mark)) problems.push('the answer carries the owner’s data');
    // whoever may see the owner's resource finds it in its views: not a leak
    const seesAll = SEES_ALL.has(who) || (w.tenantShared && who === 'other');
    if (who !== 'none' && c.setup && !seesAll) problems.push(...(await leakedInto(call, t.mark, who === 'teammate')));
  }
  const mustNotChange = !c.allowed(who, w) || foreignUpsert || (c.noEffect?.(who) ?? false);
  if (c.snapshot && mustNotChange && JSON.stringify(await c.snapshot(t, w)) !== before) problems.push('the owned resource changed');
  if (c.visibleTo && res.status < 300 && c.visibleTo(who, w) !== res.text.includes(t.listed ?? t.mark)) {
    problems.push(c.visibleTo(who, w) ? 'the listing misses what the caller may see' : 'the listing shows the owner’s resource');
  }
  return problems;
}
