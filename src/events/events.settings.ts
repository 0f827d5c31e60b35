import { defineSettings, int, type SettingsOf, variable } from '../config/settings';

/** The run event bus. */
export const eventsSettings = defineSettings({
  module: 'events',
  variables: {
    RUN_EVENTS_WINDOW: variable(
      int(1000, 1),
      'events kept per run for SSE replay (`Last-Event-ID`): a Redis stream trimmed to about this many entries (`MAXLEN ~`), or an in-process ring buffer',
    ),
    RUN_EVENTS_TTL_S: variable(int(3600, 1), "a run's events stay replayable this long after it ended"),
  },
  build: (e) => ({
    /** the run event bus: events kept per run for replay (`Last-Event-ID`), and how long after the run ended */
    runEvents: { window: e.RUN_EVENTS_WINDOW, ttlS: e.RUN_EVENTS_TTL_S },
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof eventsSettings> {}
}
