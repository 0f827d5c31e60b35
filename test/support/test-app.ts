import type { INestApplication } from '@nestjs/common';

import { createApp } from '../../src/app.factory';
import { DB_VIA_ENV } from './infra';

export interface RunningApp {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** Boots the real HTTP application on a free port with the given environment (nothing read from process.env). */
export async function startApp(env: Record<string, string | undefined>): Promise<RunningApp> {
  const app = await createApp({ LOG_LEVEL: 'error', HOST: '127.0.0.1', ...DB_VIA_ENV, ...env });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as import('node:http').Server;
  const { port } = server.address() as import('node:net').AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** JSON over HTTP with the status, for assertions on both. */
export async function http<T = any>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {},
    body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Poll until `check` returns a value (not undefined) or the time is up. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
