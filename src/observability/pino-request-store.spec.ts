import { PinoLogger } from 'nestjs-pino';

import { pinoStore, withLogFields, withRequest } from './log-context';
import { sharePinoRequestStore } from './pino-request-store';

/** what nestjs-pino's LoggerModule middleware and PinoLogger reach through the module's export */
const storageModule = () => require('nestjs-pino/storage') as typeof import('nestjs-pino/storage');

/** nestjs-pino's own AsyncLocalStorage, as the module exported it before sharing */
const own = storageModule().storage as unknown as { getStore(): unknown };

describe('sharePinoRequestStore (canary for nestjs-pino 4.6.1)', () => {
  beforeAll(() => sharePinoRequestStore());

  it("keeps nestjs-pino's request store in the log context: its own AsyncLocalStorage is never entered", () => {
    const { storage, Store } = storageModule();
    const store = new Store({ marker: 'request logger' } as never);
    const [seen, inOwn] = storage.run(store, () =>
      withRequest('req-1', 't1', undefined, () => withLogFields({ run_id: 'r1' }, () => [storage.getStore(), own.getStore()])),
    );
    expect(seen).toBe(store);
    expect(inOwn).toBeUndefined();
    expect(pinoStore()).toBeUndefined();
    expect(storage.getStore()).toBeUndefined();
  });

  it("PinoLogger logs through the request's logger inside the request", () => {
    const { storage, Store } = storageModule();
    const lines: string[] = [];
    const requestLogger = { info: (...args: unknown[]) => lines.push(`request ${JSON.stringify(args)}`), isLevelEnabled: () => true };
    const logger = new PinoLogger({});
    storage.run(new Store(requestLogger as never), () => logger.info('inside'));
    expect(lines).toEqual([expect.stringContaining('request')]);
    expect(lines[0]).toContain('inside');
  });

  it('PinoLogger.assign changes the store the rest of the request sees', () => {
    const { storage, Store } = storageModule();
    const child = { marker: 'child' };
    const store = new Store({ child: () => child } as never);
    storage.run(store, () => {
      new PinoLogger({}).assign({ user: 'u1' });
      expect((storage.getStore() as { logger: unknown }).logger).toBe(child);
    });
  });
});
