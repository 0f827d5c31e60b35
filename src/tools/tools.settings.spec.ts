import { readSlice } from '../config/settings';
import { toolsSettings } from './tools.settings';

describe('tools settings', () => {
  it('defaults: network tools on, python off, no approvals', () => {
    const s = readSlice(toolsSettings, {});
    expect(s.tools).toMatchObject({
      network: true,
      allowedPrivateHosts: [],
      timeoutMs: 10_000,
      pythonRepl: { enabled: false, timeoutMs: 10_000 },
    });
    // unset: the wiki of the user's language, and the process's own time zone
    expect(s.tools.wikipedia).toEqual({ baseUrl: undefined, language: undefined });
    expect(s.defaultTimeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect([...s.toolApproval]).toEqual([]);
  });

  it('reads lists and rejects a tool timeout under 100 ms', () => {
    const s = readSlice(toolsSettings, { TOOL_APPROVAL: 'python_repl, read_file,', TOOLS_ALLOWED_PRIVATE_HOSTS: ' a.local ,b' });
    expect([...s.toolApproval]).toEqual(['python_repl', 'read_file']);
    expect(s.tools.allowedPrivateHosts).toEqual(['a.local', 'b']);
    expect(() => readSlice(toolsSettings, { TOOLS_TIMEOUT_MS: '5' })).toThrow(/^Invalid configuration: TOOLS_TIMEOUT_MS: /);
  });

  it('takes DEFAULT_TIMEZONE and WIKIPEDIA_LANGUAGE as given, and refuses an unknown zone', () => {
    const s = readSlice(toolsSettings, { DEFAULT_TIMEZONE: 'Europe/Berlin', WIKIPEDIA_LANGUAGE: 'de' });
    expect(s.defaultTimeZone).toBe('Europe/Berlin');
    expect(s.tools.wikipedia.language).toBe('de');
    expect(() => readSlice(toolsSettings, { DEFAULT_TIMEZONE: 'Mars/Olympus' })).toThrow(
      /DEFAULT_TIMEZONE: unknown time zone "Mars\/Olympus"/,
    );
  });
});
