import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { checkIndicators, type HealthIndicator } from './health-indicator';

/** A running probe server: its port (the one asked for, or the one given for 0) and how to stop it. */
export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The health paths of a process that serves no HTTP otherwise (`worker.ts` with WORKER_HEALTH_PORT), for an
 * orchestrator's probes, as the API answers them: `GET /health/live` 200 while the process runs (its event
 * loop answers); `GET /health/ready` 200 while every indicator is up (or only degrades), else 503, with the
 * checks. Anything else is 404. Open, like the API's `/health/*`: it says nothing a probe should not see.
 */
export async function serveHealth(indicators: readonly HealthIndicator[], port: number, host: string): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'method not allowed' });
    if (path === '/health/live') return send(res, 200, { status: 'ok' });
    if (path !== '/health/ready') return send(res, 404, { error: 'not found' });
    checkIndicators(indicators).then(
      ({ ok, degraded, checks }) => send(res, ok ? 200 : 503, { status: !ok ? 'unavailable' : degraded ? 'degraded' : 'ok', checks }),
      (err: Error) => send(res, 503, { status: 'unavailable', error: err.message }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
