import path from 'node:path';

import { defineSettings, optionalString, type SettingsOf, variable } from '../config/settings';

/** The web console. */
export const consoleSettings = defineSettings({
  module: 'console',
  variables: {
    CONSOLE_DIR: variable(optionalString, 'the built web console served at `/console`', '`dist/console-ui` (written by `npm run build`)'),
  },
  build: (e) => ({
    /** the built web console (index.html, app.js, app.css) served at /console */
    // `npm run build` writes the page to dist/console-ui, beside dist/console where this file runs from
    consoleDir: path.resolve(e.CONSOLE_DIR ?? path.join(__dirname, '..', 'console-ui')),
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof consoleSettings> {}
}
