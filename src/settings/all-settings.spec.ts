import { readFileSync } from 'node:fs';

import { AppConfig, registeredSettings } from '../config/app-config';
import { SETTINGS_PAGE, settingsTable, TABLE_END, TABLE_START, type Variable, withSettingsTable } from '../config/settings';
import { SETTINGS } from './all-settings';

describe('the settings slices (src/settings/all-settings.ts)', () => {
  it('are the ones AppConfig is built from, each variable described', () => {
    expect(registeredSettings()).toBe(SETTINGS);
    for (const slice of SETTINGS) {
      for (const [name, v] of Object.entries<Variable>(slice.variables)) {
        expect([name, v.doc.length > 0]).toEqual([name, true]);
      }
    }
  });

  it(`${SETTINGS_PAGE} carries the generated table (else run \`npm run settings:table -- --write\`)`, () => {
    const page = readFileSync(SETTINGS_PAGE, 'utf8');
    expect(page).toContain(TABLE_START);
    expect(page).toContain(TABLE_END);
    if (withSettingsTable(page, settingsTable(SETTINGS)) !== page) {
      throw new Error(
        `${SETTINGS_PAGE}: the settings table is out of date with the settings slices: run \`npm run settings:table -- --write\``,
      );
    }
  });

  it('report every problem of every slice in one error', () => {
    expect(() => new AppConfig({ PORT: 'abc', RUN_LOCK_MS: '1', LLM_JSON_MODE: 'yaml' })).toThrow(
      /^Invalid configuration: PORT: .*; RUN_LOCK_MS: .*; LLM_JSON_MODE: /,
    );
  });
});
