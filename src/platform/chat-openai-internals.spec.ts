import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ChatOpenAI, type ChatOpenAICallOptions } from '@langchain/openai';

import { clientBaseUrlOf, constructorFieldsOf } from './chat-openai-internals';

const MARK = Symbol('canary');

/** An OpenAI-compatible endpoint answering every request with one completion. */
const fetchAnswer: typeof fetch = async () =>
  new Response(
    JSON.stringify({
      id: 'c-1',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
    { headers: { 'content-type': 'application/json' } },
  );

/** A subclass hooking the call path as MeteredChatOpenAI does: a symbol put on the call options reaches `_generate`. */
class Hooked extends ChatOpenAI {
  seen: unknown[] = [];

  protected override _separateRunnableConfigFromCallOptionsCompat(
    options?: Partial<ChatOpenAICallOptions>,
  ): [RunnableConfig, this['ParsedCallOptions']] {
    const [config, callOptions] = super._separateRunnableConfigFromCallOptionsCompat(options);
    (callOptions as { [MARK]?: string })[MARK] = 'budget';
    return [config, callOptions];
  }

  override async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    this.seen.push((options as { [MARK]?: string })[MARK]);
    return super._generate(messages, options, runManager);
  }
}

describe('ChatOpenAI internals (canary: what MeteredChatOpenAI and endpointOf read)', () => {
  const fields = { model: 'm', apiKey: 'k', temperature: 0.3, configuration: { baseURL: 'http://models.test/v1', fetch: fetchAnswer } };

  it('keeps the fields it was constructed with, and withConfig builds a plain ChatOpenAI from them', () => {
    const model = new Hooked(fields);
    expect(constructorFieldsOf(model)).toBe(fields);
    const bound = model.withConfig({ stop: ['x'] });
    expect(bound.constructor).toBe(ChatOpenAI); // why MeteredChatOpenAI overrides withConfig
    expect(constructorFieldsOf(bound)).toBe(fields);
  });

  it('exposes the base URL it sends to as clientConfig.baseURL', () => {
    expect(clientBaseUrlOf(new ChatOpenAI(fields))).toBe('http://models.test/v1');
    expect(clientBaseUrlOf(new ChatOpenAI({ model: 'm', apiKey: 'k' }))).toBeUndefined();
    expect(clientBaseUrlOf({})).toBeUndefined();
  });

  it('splits every call through _separateRunnableConfigFromCallOptionsCompat and hands those call options to _generate', async () => {
    const model = new Hooked(fields);
    const out = await model.invoke('hi');
    expect(out.content).toBe('ok');
    expect(model.seen).toEqual(['budget']);
    for (const hook of ['_streamResponseChunks', '_streamChatModelEvents', '_getSerializedCacheKeyParametersForCall'] as const) {
      expect(typeof ChatOpenAI.prototype[hook]).toBe('function');
    }
  });
});
