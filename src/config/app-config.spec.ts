import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';

import { AppConfig } from './app-config';
import { usableCores } from './settings';

describe('AppConfig', () => {
  it('applies the documented defaults on an empty environment', () => {
    const c = new AppConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.maxIterations).toBe(5);
    expect(c.llm.maxRetries).toBe(3);
    expect(c.llm.toolCalling).toBe('auto');
    expect(c.llm.jsonMode).toBe('auto');
    expect(c.llm.jsonRetries).toBe(1);
    expect(c.llm.breaker).toEqual({ failures: 5, windowMs: 60_000, cooldownMs: 30_000 });
    expect(c.runWorker).toBe(true);
    expect(c.modelConfigured).toBe(false);
  });

  it('treats blank strings as unset and parses booleans and numbers', () => {
    const c = new AppConfig({ DATABASE_URL: '  ', RUN_WORKER: 'false', MAX_ITERATIONS: '7', LLM_BASE_URL: 'http://x/v1' });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.runWorker).toBe(false);
    expect(c.maxIterations).toBe(7);
    expect(c.modelConfigured).toBe(true);
  });

  it('reads per-agent tool-calling modes', () => {
    const c = new AppConfig({ LLM_TOOL_CALLING: 'native', LLM_TOOL_CALLING_AGENTS: 'supervisor:prompt, react:native, assistant:auto' });
    expect(c.llm.toolCallingByAgent).toEqual({ supervisor: 'prompt', react: 'native', assistant: 'auto' });
    expect(() => new AppConfig({ LLM_TOOL_CALLING_AGENTS: 'supervisor:magic' })).toThrow(/LLM_TOOL_CALLING_AGENTS/);
  });

  it('rejects invalid values with the variable name', () => {
    expect(() => new AppConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => new AppConfig({ LLM_MAX_RETRIES: '9' })).toThrow(/LLM_MAX_RETRIES/);
    expect(() => new AppConfig({ LLM_TOOL_CALLING: 'magic' })).toThrow(/LLM_TOOL_CALLING/);
    expect(() => new AppConfig({ LLM_JSON_MODE: 'yaml' })).toThrow(/LLM_JSON_MODE/);
    expect(() => new AppConfig({ LLM_BREAKER_FAILURES: '0' })).toThrow(/LLM_BREAKER_FAILURES/);
  });
});

describe('WEB_CONCURRENCY', () => {
  it('is 1 when unset or blank, a positive integer, or one per core with auto', () => {
    expect(new AppConfig({}).webConcurrency).toBe(1);
    expect(new AppConfig({ WEB_CONCURRENCY: ' ' }).webConcurrency).toBe(1);
    expect(new AppConfig({ WEB_CONCURRENCY: '4' }).webConcurrency).toBe(4);
    expect(new AppConfig({ WEB_CONCURRENCY: ' 2 ' }).webConcurrency).toBe(2);
    expect(new AppConfig({ WEB_CONCURRENCY: 'auto' }).webConcurrency).toBe(usableCores());
  });

  it('auto counts a container CPU limit (cgroup v2 and v1 quotas), rounded up, never above the CPUs or below one', () => {
    const files = (map: Record<string, string>) => (p: string) => {
      if (!(p in map)) throw new Error(`ENOENT: ${p}`);
      return map[p];
    };
    const cpus = availableParallelism();
    expect(usableCores(files({}))).toBe(cpus);
    expect(usableCores(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBe(cpus);
    expect(usableCores(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' }))).toBe(1);
    expect(usableCores(files({ '/sys/fs/cgroup/cpu.max': '150000 100000' }))).toBe(Math.min(cpus, 2));
    expect(usableCores(files({ '/sys/fs/cgroup/cpu.max': `${(cpus + 3) * 100000} 100000` }))).toBe(cpus);
    const v1 = (quota: string) =>
      files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': `${quota}\n`, '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' });
    expect(usableCores(v1('-1'))).toBe(cpus);
    expect(usableCores(v1('100000'))).toBe(1);
    expect(usableCores(v1('20000'))).toBe(1);
  });

  it('rejects zero, negatives, fractions and words with the variable name', () => {
    for (const bad of ['0', '-1', '1.5', '2x', 'all', 'AUTO', '1e3']) {
      expect(() => new AppConfig({ WEB_CONCURRENCY: bad })).toThrow(/WEB_CONCURRENCY: a positive integer or "auto"/);
    }
  });
});

describe('iteration limits per agent', () => {
  it('defaults from the seeds; MAX_ITERATIONS is the deprecated fallback for react', () => {
    expect(new AppConfig({}).iterationLimits).toEqual({ react: 5, assistant: 10, contractQa: 5 });
    expect(new AppConfig({ MAX_ITERATIONS: '3' }).iterationLimits).toEqual({ react: 3, assistant: 10, contractQa: 5 });
    const own = new AppConfig({
      MAX_ITERATIONS: '3',
      REACT_MAX_ITERATIONS: '4',
      ASSISTANT_MAX_ITERATIONS: '6',
      CONTRACT_QA_MAX_ITERATIONS: '7',
    });
    expect(own.iterationLimits).toEqual({ react: 4, assistant: 6, contractQa: 7 });
  });
});

describe('LANGGRAPH_CONFIG', () => {
  it('resolves the setting against the working directory; without it, ./langgraph.json only when that file exists', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      expect(new AppConfig({}).langgraphConfig).toBeUndefined();
      expect(new AppConfig({ LANGGRAPH_CONFIG: 'graphs/lg.json' }).langgraphConfig).toBe(path.join(process.cwd(), 'graphs/lg.json'));
      writeFileSync(path.join(dir, 'langgraph.json'), '{"graphs":{}}');
      expect(new AppConfig({}).langgraphConfig).toBe(path.join(process.cwd(), 'langgraph.json'));
    } finally {
      process.chdir(cwd);
    }
  });

  it('reads a JSON value as per-graph defaults (context apart, the rest config), the path then ./langgraph.json if any', () => {
    const json = '{"chat": {"configurable": {"tone": "dry"}, "recursion_limit": 5, "context": {"tier": "gold"}}}';
    const config = new AppConfig({ LANGGRAPH_CONFIG: json });
    expect(config.graphDefaults).toEqual({
      chat: { config: { configurable: { tone: 'dry' }, recursion_limit: 5 }, context: { tier: 'gold' } },
    });
    expect(config.langgraphConfig).not.toBe(path.resolve(json));
    expect(new AppConfig({ LANGGRAPH_CONFIG: 'graphs/lg.json' }).graphDefaults).toBeUndefined();
    expect(() => new AppConfig({ LANGGRAPH_CONFIG: '{"chat": 1}' })).toThrow(/Invalid configuration: LANGGRAPH_CONFIG/);
  });
});
