import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import IORedis from 'ioredis';

import { AppConfig } from '../config/app-config';
import { redisOptions } from '../config/redis-options';
import { MetricsService } from '../observability/metrics.service';
import { breakerFor, type BreakerSnapshot } from './circuit-breaker';
import { errorBodyFetch } from './error-body-fetch';
import { type JsonModeSetting, setJsonDecisionSettings } from './json-mode';
import { LlmCache, MemoryCacheStore, RedisCacheStore } from './llm-cache';
import { MeteredChatOpenAI, OPENAI_BASE_URL } from './metered-chat-model';
import type { ToolCallingMode } from './tool-binding';

export interface ChatModelOptions {
  temperature?: number;
  maxTokens?: number;
}

/**
 * The chat-model factory: any OpenAI-compatible endpoint, with explicit timeouts and bounded retries
 * (exponential backoff inside the client). Returns null when no model is configured: callers then take
 * their rule paths and answer extractively.
 */
@Injectable()
export class LlmService implements OnApplicationShutdown {
  private readonly logger = new Logger(LlmService.name);
  private readonly models = new Map<string, BaseChatModel>();
  private readonly redis?: IORedis;
  private readonly redisStore?: RedisCacheStore;
  /** LangChain's cache interface; Redis-backed when REDIS_URL is set (shared by every worker), else in-process */
  readonly cache?: LlmCache;

  constructor(
    private readonly config: AppConfig,
    metrics?: MetricsService,
  ) {
    if (!config.modelConfigured) {
      this.logger.warn('No model configured (LLM_BASE_URL / LLM_MODEL unset): rule paths decide, answers are extractive');
    }
    const c = config.llm.cache;
    if (config.modelConfigured && c.enabled) {
      if (config.redisUrl) this.redis = new IORedis({ ...redisOptions(config), maxRetriesPerRequest: 1, enableOfflineQueue: false });
      this.redis?.on('error', () => undefined); // a cache outage only costs cache misses
      if (this.redis) this.redisStore = new RedisCacheStore(this.redis);
      const store = this.redisStore ?? new MemoryCacheStore(c.maxEntries);
      const stats = { hit: () => metrics?.llmCacheHits.inc(), miss: () => metrics?.llmCacheMisses.inc() };
      this.cache = new LlmCache(store, c.ttlSeconds, stats, config.queuePrefix);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redisStore?.close();
    this.redis?.disconnect();
  }

  get configured(): boolean {
    return this.config.modelConfigured;
  }

  get modelName(): string | null {
    return this.configured ? (this.config.llm.model ?? 'default') : null;
  }

  get toolCalling(): ToolCallingMode {
    return this.config.llm.toolCalling;
  }

  /** LLM_TOOL_CALLING, or the agent's own mode from LLM_TOOL_CALLING_AGENTS. */
  toolCallingFor(agent: string): ToolCallingMode {
    return this.config.llm.toolCallingByAgent[agent] ?? this.config.llm.toolCalling;
  }

  /** LLM_JSON_MODE (decideJson reads it from the models this service builds). */
  get jsonMode(): JsonModeSetting {
    return this.config.llm.jsonMode;
  }

  /** LLM_JSON_RETRIES: re-asks of an unparseable JSON decision. */
  get jsonRetries(): number {
    return this.config.llm.jsonRetries;
  }

  /** The configured endpoint's circuit breaker (for readiness and metrics); null without a model. */
  breakerState(): BreakerSnapshot | null {
    if (!this.configured) return null;
    return breakerFor(this.config.llm.baseUrl ?? OPENAI_BASE_URL, this.config.llm.breaker).snapshot();
  }

  chatModel(options: ChatModelOptions = {}): BaseChatModel | null {
    if (!this.configured) return null;
    const { llm } = this.config;
    const temperature = options.temperature ?? llm.temperature;
    const maxTokens = options.maxTokens ?? llm.maxTokens;
    const key = `${temperature}:${maxTokens ?? ''}`;
    let model = this.models.get(key);
    if (!model) {
      model = new MeteredChatOpenAI({
        model: llm.model ?? 'default',
        apiKey: llm.apiKey ?? 'not-needed',
        configuration: { ...(llm.baseUrl ? { baseURL: llm.baseUrl } : {}), fetch: errorBodyFetch },
        temperature,
        maxTokens,
        timeout: llm.timeoutMs,
        maxRetries: llm.maxRetries,
        rateLimitRetries: llm.maxRetries,
        streamUsage: true,
        cache: this.cache,
        breaker: llm.breaker,
      });
      setJsonDecisionSettings(model, { mode: llm.jsonMode, retries: llm.jsonRetries });
      this.models.set(key, model);
    }
    return model;
  }
}
