import { readSlice } from '../config/settings';
import { agentsSettings } from './agents.settings';
import { DEFAULT_SUB_AGENTS } from './supervisor/default-sub-agents';

describe('agents settings', () => {
  it('defaults from the seeds', () => {
    const s = readSlice(agentsSettings, {});
    expect(s).toMatchObject({ defaultAgent: 'react', builtInAgents: undefined, maxIterations: 5 });
    expect(s.assistantMemory).toEqual({ maxMessages: 10, keepRecent: 5, maxSummaries: 3 });
    expect(s.supervisor).toEqual({ maxRoutings: 5, agentMaxIterations: 10, agents: DEFAULT_SUB_AGENTS });
    expect(s.planExecute).toEqual({ maxReplans: 2, stepTimeoutMs: 20_000 });
  });

  it('keeps fewer recent messages than the summarising threshold; BUILTIN_AGENTS=none registers none', () => {
    expect(readSlice(agentsSettings, { ASSISTANT_MAX_MESSAGES: '4', ASSISTANT_KEEP_RECENT: '9' }).assistantMemory.keepRecent).toBe(3);
    expect([...(readSlice(agentsSettings, { BUILTIN_AGENTS: 'none' }).builtInAgents ?? ['?'])]).toEqual([]);
    expect([...(readSlice(agentsSettings, { BUILTIN_AGENTS: ' react , assistant' }).builtInAgents ?? [])]).toEqual(['react', 'assistant']);
  });

  it('rejects invalid sub-agents with the variable named', () => {
    expect(() => readSlice(agentsSettings, { SUPERVISOR_AGENTS: '[]' })).toThrow(/^Invalid configuration: SUPERVISOR_AGENTS: /);
    expect(() => readSlice(agentsSettings, { SUPERVISOR_AGENTS: 'not json' })).toThrow(/^Invalid configuration: SUPERVISOR_AGENTS: /);
  });
});
