import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readSlice } from '../../config/settings';
import { a2aSettings } from './a2a.settings';

describe('A2A settings', () => {
  it('none by default', () => {
    expect(readSlice(a2aSettings, {}).a2aAgents).toEqual({});
  });

  it('reads agents with their defaults, from JSON or from a file', () => {
    const json = JSON.stringify({
      travel: { card_url: 'https://travel.example/.well-known/agent-card.json', headers: { 'x-api-key': 'k' }, agents: ['react'] },
      legal: { card_url: 'https://legal.example/card.json', supervisor: true, timeout_ms: 5000, max_chars: 3000 },
    });
    const s = readSlice(a2aSettings, { A2A_AGENTS: json });
    expect(s.a2aAgents).toEqual({
      travel: {
        card_url: 'https://travel.example/.well-known/agent-card.json',
        headers: { 'x-api-key': 'k' },
        timeout_ms: 60_000,
        max_chars: 20_000,
        max_bytes: 1024 * 1024,
        agents: ['react'],
        supervisor: false,
      },
      legal: {
        card_url: 'https://legal.example/card.json',
        timeout_ms: 5000,
        max_chars: 3000,
        max_bytes: 1024 * 1024,
        agents: [],
        supervisor: true,
      },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'a2a-settings-')), 'agents.json');
    writeFileSync(file, json);
    expect(readSlice(a2aSettings, { A2A_AGENTS: file }).a2aAgents).toEqual(s.a2aAgents);
  });

  it.each([
    ['{"a b": {"card_url": "https://x.example"}}', /"a b" is not an agent name/],
    ['{"_x": {"card_url": "https://x.example"}}', /"_x" is not an agent name/],
    ['{"x": {}}', /x\.card_url: /],
    ['{"x": {"card_url": "ftp://x.example"}}', /x\.card_url: /],
    ['{"x": {"card_url": "https://x.example", "timeout_ms": 5}}', /x\.timeout_ms: /],
    ['{"x": {"card_url": "https://x.example", "supervisor": "yes"}}', /x\.supervisor: /],
    ['{"x": {"card_url": "https://x.example", "headers": {"a": 1}}}', /x\.headers\.a: /],
    ['{"x": {"card_url": "https://x.example", "url": "https://x.example"}}', /x: Unrecognized key: "url"/],
    ['[1]', /an object of agents by name/],
    ['{"x": ', /A2A_AGENTS: not valid JSON/],
    ['/nonexistent/agents.json', /A2A_AGENTS: neither JSON nor a readable file/],
  ])('refuses %s, naming A2A_AGENTS and the field', (value, problem) => {
    expect(() => readSlice(a2aSettings, { A2A_AGENTS: value })).toThrow(/^Invalid configuration: A2A_AGENTS/);
    expect(() => readSlice(a2aSettings, { A2A_AGENTS: value })).toThrow(problem);
  });
});
