import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/** What a scripted fake answers: text, a message (tool calls), or an error to throw. */
export type FakeTurn = string | AIMessage | Error;

export interface FakeCall {
  messages: BaseMessage[];
  options: Record<string, unknown>;
}

/**
 * A chat model for unit tests: answers from a script, records each call's messages and call options
 * (`response_format`, `tools`…), and throws scripted errors (e.g. `httpError(400, '…')`).
 */
export class FakeChatModel extends BaseChatModel {
  readonly calls: FakeCall[] = [];
  private readonly script: FakeTurn[];

  constructor(
    script: FakeTurn[],
    readonly name = 'fake-model',
  ) {
    super({});
    this.script = [...script];
  }

  _llmType(): string {
    return 'fake-chat';
  }

  get model(): string {
    return this.name;
  }

  override bindTools(tools: unknown[]) {
    return this.withConfig({ tools } as Partial<BaseChatModelCallOptions>);
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    this.calls.push({ messages, options: options as Record<string, unknown> });
    const turn = this.script.shift();
    if (turn === undefined) throw new Error('fake model: script exhausted');
    if (turn instanceof Error) throw turn;
    const message = typeof turn === 'string' ? new AIMessage(turn) : turn;
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }
}

/** An error shaped like the OpenAI client's (status, body under `error`). */
export function httpError(status: number, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${status} ${message}`), { status, error: { message }, ...extra });
}
