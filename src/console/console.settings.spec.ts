import path from 'node:path';

import { readSlice } from '../config/settings';
import { consoleSettings } from './console.settings';

describe('console settings', () => {
  it('the built page beside the compiled app, or CONSOLE_DIR resolved', () => {
    expect(readSlice(consoleSettings, {}).consoleDir).toBe(path.resolve(__dirname, '..', 'console-ui'));
    expect(readSlice(consoleSettings, { CONSOLE_DIR: 'ui' }).consoleDir).toBe(path.resolve('ui'));
  });
});
