import '../src/settings/all-settings';

import { readFileSync, writeFileSync } from 'node:fs';

import { registeredSettings } from '../src/config/app-config';
import { SETTINGS_PAGE, settingsTable, withSettingsTable } from '../src/config/settings';

/**
 * `npm run settings:table`: prints the markdown table of every environment variable, from the settings slices
 * (src/settings/all-settings.ts); with `--write` rewrites the table of docs/configuration.md between its markers (a unit
 * test keeps it current).
 */
const table = settingsTable(registeredSettings());
if (process.argv.includes('--write')) {
  writeFileSync(SETTINGS_PAGE, withSettingsTable(readFileSync(SETTINGS_PAGE, 'utf8'), table));
  console.log(`wrote the settings table in ${SETTINGS_PAGE}`);
} else {
  process.stdout.write(`${table}\n`);
}
