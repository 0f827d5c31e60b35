import { Injectable, Logger } from '@nestjs/common';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { MeteredChatOpenAI } from './metered-chat-model';
import { AppConfig } from '../config/app-config';

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
export class LlmService {
  private readonly logger = new Logger(LlmService.name);
  private readonly cache = new Map<string, BaseChatModel>();

  constructor(private readonly config: AppConfig) {
    if (!config.modelConfigured) {
      this.logger.warn('No model configured (LLM_BASE_URL / LLM_MODEL unset): rule paths decide, answers are extractive');
    }
  }

  get configured(): boolean {
    return this.config.modelConfigured;
  }

  get modelName(): string | null {
    return this.configured ? (this.config.llm.model ?? 'default') : null;
  }

  get toolCalling(): 'native' | 'prompt' {
    return this.config.llm.toolCalling;
  }

  chatModel(options: ChatModelOptions = {}): BaseChatModel | null {
    if (!this.configured) return null;
    const { llm } = this.config;
    const temperature = options.temperature ?? llm.temperature;
    const maxTokens = options.maxTokens ?? llm.maxTokens;
    const key = `${temperature}:${maxTokens ?? ''}`;
    let model = this.cache.get(key);
    if (!model) {
      model = new MeteredChatOpenAI({
        model: llm.model ?? 'default',
        apiKey: llm.apiKey ?? 'not-needed',
        configuration: llm.baseUrl ? { baseURL: llm.baseUrl } : undefined,
        temperature,
        maxTokens,
        timeout: llm.timeoutMs,
        maxRetries: llm.maxRetries,
        rateLimitRetries: llm.maxRetries,
        streamUsage: true,
      });
      this.cache.set(key, model);
    }
    return model;
  }
}
