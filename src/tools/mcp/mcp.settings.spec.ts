import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readSlice } from '../../config/settings';
import { mcpSettings } from './mcp.settings';

describe('MCP settings', () => {
  it('none by default', () => {
    expect(readSlice(mcpSettings, {}).mcpServers).toEqual({});
  });

  it('reads stdio and HTTP servers with their defaults, from JSON or from a file', () => {
    const json = JSON.stringify({ fs: { command: 'mcp-fs', risk: 'medium' }, crm: { url: 'https://crm.example/mcp', agents: ['react'] } });
    const s = readSlice(mcpSettings, { MCP_SERVERS: json });
    expect(s.mcpServers).toEqual({
      fs: { command: 'mcp-fs', args: [], risk: 'medium', timeout_ms: 30_000, agents: [] },
      crm: { url: 'https://crm.example/mcp', risk: 'high', timeout_ms: 30_000, agents: ['react'] },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-settings-')), 'servers.json');
    writeFileSync(file, json);
    expect(readSlice(mcpSettings, { MCP_SERVERS: file }).mcpServers).toEqual(s.mcpServers);
  });

  it.each([
    ['{"a b": {"command": "x"}}', /server name/],
    ['{"x": {"command": "x", "risk": "extreme"}}', /x\.risk: /],
    ['{"x": {"url": "ftp://x"}}', /x\.url: /],
    ['{"x": {"command": "x", "url": "http://x"}}', /x: Unrecognized key: "command"/],
    ['{"x": ', /MCP_SERVERS: not valid JSON/],
    ['/nonexistent/servers.json', /MCP_SERVERS: neither JSON nor a readable file/],
  ])('refuses %s, naming MCP_SERVERS', (value, problem) => {
    expect(() => readSlice(mcpSettings, { MCP_SERVERS: value })).toThrow(/^Invalid configuration: MCP_SERVERS/);
    expect(() => readSlice(mcpSettings, { MCP_SERVERS: value })).toThrow(problem);
  });
});
