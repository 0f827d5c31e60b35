import { createServer, type Server, Socket } from 'node:net';

import SentinelConnector from 'ioredis/built/connectors/SentinelConnector';

import { cleanUpSentinelDetectors } from './sentinel-detector-cleanup';

/** A stand-in sentinel that answers every SUBSCRIBE: enough for ioredis' failover detector. */
async function fakeSentinel(): Promise<{ server: Server; port: number; open: () => number }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('data', () => s.write('*3\r\n$9\r\nsubscribe\r\n$14\r\n+switch-master\r\n:1\r\n'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, open: () => sockets.size };
}

const waitUntil = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

describe('cleanUpSentinelDetectors (canary: ioredis SentinelConnector internals)', () => {
  it('a failover detector is cleaned up when the connection it watches closes', async () => {
    expect(cleanUpSentinelDetectors()).toBe(true);
    expect(cleanUpSentinelDetectors()).toBe(true); // once: the wrapper is not wrapped again
    const sentinel = await fakeSentinel();
    const connector = new SentinelConnector({
      sentinels: [{ host: '127.0.0.1', port: sentinel.port }],
      name: 'mymaster',
      failoverDetector: true,
      sentinelMaxConnections: 10,
    } as ConstructorParameters<typeof SentinelConnector>[0]);
    const stream = new Socket();
    const internals = connector as unknown as { stream: Socket; initFailoverDetector(): Promise<void> };
    internals.stream = stream;
    try {
      await internals.initFailoverDetector();
      expect(await waitUntil(() => sentinel.open() === 1)).toBe(true); // the detector subscribed
      stream.emit('close'); // what quit() ends with
      expect(await waitUntil(() => sentinel.open() === 0)).toBe(true);
    } finally {
      connector.disconnect();
      stream.destroy();
      await new Promise((r) => sentinel.server.close(r));
    }
  });
});
