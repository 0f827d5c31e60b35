import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../../support/service-fixture';
import { type ReferenceServer, startReferenceServer } from './reference-server';

/** the conformance graphs (ours, written for these tests) and their `langgraph.json` */
export const CONFORMANCE_CONFIG = path.join(__dirname, '..', 'graphs', 'langgraph.json');

/** What a client sees of one server: its URL, an SDK client, and raw HTTP. */
export interface Side {
  readonly name: 'ours' | 'reference';
  readonly url: string;
  readonly client: Client;
  /** a request as a client sends it; the answer with its status, content type and body (JSON when it parses) */
  request(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

export interface Answer {
  status: number;
  contentType: string;
  headers: Headers;
  body: any;
}

export interface Pair {
  readonly ours: Side;
  readonly reference: Side;
  /** the same steps against both servers, concurrently; what each saw */
  both<T>(steps: (side: Side) => Promise<T>): Promise<{ ours: T; reference: T }>;
}

function side(name: Side['name'], url: () => string): Side {
  let client: Client | undefined;
  return {
    name,
    get url() {
      return url();
    },
    get client() {
      client ??= new Client({ apiUrl: url(), callerOptions: { maxRetries: 0 } });
      return client;
    },
    async request(method, route, body, headers = {}) {
      const res = await fetch(`${url()}${route}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* text as it is */
      }
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', headers: res.headers, body: parsed };
    },
  };
}

/**
 * This service and the reference LangGraph server (`@langchain/langgraph-api` from npm) on the same
 * `langgraph.json`, for one test file: both start in beforeAll (concurrently), both stop in afterAll.
 * Ours runs in process on a fresh database, without API keys, as a platform client calls it.
 */
export function usePair(label: string, options: { config?: string; env?: Record<string, string> } = {}): Pair {
  const config = options.config ?? CONFORMANCE_CONFIG;
  let starting: Promise<ReferenceServer> | undefined;
  let reference: ReferenceServer | undefined;
  beforeAll(() => {
    starting = startReferenceServer(config);
    starting.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  });
  const svc = useService(`conformance_${label}`, { env: { LANGGRAPH_CONFIG: config, ...options.env } });
  beforeAll(async () => {
    reference = await starting;
  }, 120_000);
  afterAll(async () => {
    await (reference ?? (await starting?.catch(() => undefined)))?.stop();
  });
  const ours = side('ours', () => svc.url);
  const ref = side('reference', () => {
    if (!reference) throw new Error('the reference server is not started');
    return reference.url;
  });
  return {
    ours,
    reference: ref,
    async both(steps) {
      const [o, r] = await Promise.all([steps(ours), steps(ref)]);
      return { ours: o, reference: r };
    },
  };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * What is left to compare once what differs by nature is named: each distinct UUID becomes `<id1>`, `<id2>`…
 * in order of appearance (so the same id in two places stays the same placeholder), timestamps `<time>`, and
 * the keys in `drop` (at any depth) are removed.
 */
export function normalize(value: unknown, drop: string[] = []): unknown {
  const ids = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (ISO_TIME.test(v)) return '<time>';
      return v.replace(UUID, (id) => {
        const key = id.toLowerCase();
        if (!ids.has(key)) ids.set(key, `<id${ids.size + 1}>`);
        return ids.get(key)!;
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) if (!drop.includes(key)) out[key] = walk((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return walk(value);
}

/** an SDK call's outcome as a client sees it: its value, or the error's message */
export async function outcome<T>(call: Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await call };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
