import { readSlice } from '../config/settings';
import { eventsSettings } from './events.settings';

describe('events settings', () => {
  it('defaults and an invalid window', () => {
    expect(readSlice(eventsSettings, {})).toEqual({ runEvents: { window: 1000, ttlS: 3600 } });
    expect(() => readSlice(eventsSettings, { RUN_EVENTS_WINDOW: '0' })).toThrow(/^Invalid configuration: RUN_EVENTS_WINDOW: /);
  });
});
