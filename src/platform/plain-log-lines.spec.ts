import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';

import { oneLine, plainLogLines } from './plain-log-lines';

const RUN_ENDED = { msg: 'run ended', run_id: 'r-1', session_id: 's 1', status: 'completed', ms: 12, llm_calls: 0, tenant: undefined };

describe('plainLogLines', () => {
  let written: string[];
  beforeAll(() => expect(plainLogLines()).toBe(true));
  beforeEach(() => {
    written = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    Logger.overrideLogger(new ConsoleLogger());
  });

  it("gives Nest's default console logger one plain line per message", () => {
    Logger.overrideLogger(new ConsoleLogger({ colors: false }));
    new Logger('RunOutcomes').log(RUN_ENDED);
    new Logger('RunOutcomes').warn({ msg: 'run handed back', reason: { code: 'LEASE_LOST' } });
    expect(written).toHaveLength(2);
    expect(written[0].trimEnd().split('\n')).toHaveLength(1);
    expect(written[0]).toMatch(/\[RunOutcomes\] run ended run_id=r-1 session_id="s 1" status=completed ms=12 llm_calls=0\n$/);
    expect(written[1]).toMatch(/run handed back reason=\{"code":"LEASE_LOST"\}\n$/);
  });

  it('hands the fields to a logger that keeps them (pino, a JSON console logger, a host logger)', () => {
    const received: unknown[] = [];
    const keeper: LoggerService = { log: (m) => received.push(m), warn: (m) => received.push(m), error: (m) => received.push(m) };
    Logger.overrideLogger(keeper);
    new Logger('RunOutcomes').log(RUN_ENDED);
    expect(received).toEqual([RUN_ENDED]);
    Logger.overrideLogger(new ConsoleLogger({ json: true }));
    new Logger('RunOutcomes').log(RUN_ENDED);
    expect(JSON.parse(written.at(-1)!)).toMatchObject({ message: { msg: 'run ended', run_id: 'r-1' }, context: 'RunOutcomes' });
  });

  it('leaves plain text alone', () => {
    Logger.overrideLogger(new ConsoleLogger({ colors: false }));
    new Logger('Main').log('listening on http://127.0.0.1:3000');
    expect(written[0]).toMatch(/\[Main\] listening on http:\/\/127\.0\.0\.1:3000\n$/);
    expect(oneLine({ msg: 'x', a: 'has=equals' })).toBe('x a="has=equals"');
  });
});
