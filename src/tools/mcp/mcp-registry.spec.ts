import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import type { AppConfig } from '../../config/app-config';
import { readSlice } from '../../config/settings';
import { ToolRegistry } from '../tool-registry.service';
import { mcpPolicy, setSourcedPolicy, toolPolicy } from '../tool-risk';
import { toolsSettings } from '../tools.settings';

const fake = (name: string) => tool(() => 'ok', { name, description: name, schema: z.object({}) });

describe('MCP tools in the tool registry', () => {
  const config = {
    ...readSlice(toolsSettings, {}),
    mcpServers: { crm: { url: 'http://x', risk: 'high', timeout_ms: 1000, agents: ['react'] } },
  } as unknown as AppConfig;

  it('gives a server’s tools, registered after the pick, to the agents it names (a live allow-list)', () => {
    const registry = new ToolRegistry(config);
    const react = registry.pick(['calculator'], 'react');
    const assistant = registry.pick(['calculator'], 'assistant');
    const sub = registry.pick(['crm__*']);
    registry.register(fake('crm__search'), 'crm');
    expect(react.map((t) => t.name)).toEqual(['calculator', 'crm__search']);
    expect(sub.map((t) => t.name)).toEqual(['crm__search']);
    expect(assistant.map((t) => t.name)).toEqual(['calculator']);
    registry.register(fake('crm__search'), 'crm'); // a reconnect replaces, never duplicates
    expect(react.map((t) => t.name)).toEqual(['calculator', 'crm__search']);
    expect(registry.list().find((t) => t.name === 'crm__search')).toMatchObject({ server: 'crm', risk: 'high' });
  });

  it('maps a server’s risk onto the guard’s policies; no source relaxes a built-in tool', () => {
    expect(mcpPolicy('low')).toEqual({ risk: 'low', untrustedOutput: true });
    expect(mcpPolicy('medium')).toEqual({ risk: 'high', untrustedOutput: true });
    expect(mcpPolicy('high')).toEqual({ risk: 'high', untrustedOutput: true, network: true });
    setSourcedPolicy('python_repl', mcpPolicy('low'));
    expect(toolPolicy('python_repl').risk).toBe('high');
  });
});
