import { AppConfig } from '../config/app-config';
import { readSlice } from '../config/settings';
import { llmSettings } from './llm.settings';

describe('llm settings', () => {
  it('defaults: no model, auto tool calling and JSON mode, cache on', () => {
    expect(readSlice(llmSettings, {}).llm).toEqual({
      baseUrl: undefined,
      apiKey: undefined,
      model: undefined,
      toolCalling: 'auto',
      toolCallingByAgent: {},
      timeoutMs: 60_000,
      maxRetries: 3,
      temperature: 0,
      maxTokens: undefined,
      cache: { enabled: true, ttlSeconds: 3600, maxEntries: 5000 },
      jsonMode: 'auto',
      jsonRetries: 1,
      breaker: { failures: 5, windowMs: 60_000, cooldownMs: 30_000 },
    });
  });

  it('modelConfigured: a base URL, or a key and a model (a getter on AppConfig)', () => {
    expect(new AppConfig({ LLM_API_KEY: 'k' }).modelConfigured).toBe(false);
    expect(new AppConfig({ LLM_API_KEY: 'k', LLM_MODEL: 'm' }).modelConfigured).toBe(true);
    expect(Object.keys(new AppConfig({}))).not.toContain('modelConfigured');
  });

  it('rejects a temperature above 2 with the variable named', () => {
    expect(() => readSlice(llmSettings, { LLM_TEMPERATURE: '3' })).toThrow(/^Invalid configuration: LLM_TEMPERATURE: /);
  });
});
