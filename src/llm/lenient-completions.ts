import { ChatOpenAICompletions, wrapOpenAIClientError } from '@langchain/openai';
import type OpenAI from 'openai';

type Request = OpenAI.Chat.ChatCompletionCreateParams;

/**
 * The completions client without the SDK's strict parse. With a `json_schema` response format, @langchain/openai
 * calls the OpenAI SDK's `chat.completions.parse()`, which throws on any reply that is not bare JSON — from an
 * endpoint that accepts the format without enforcing it, or an answer cut off at max_tokens — and the client then
 * retries the same request. Here such requests go through `create()`: decideJson reads prose-wrapped JSON itself
 * (lenient parse, bounded re-ask), so a talkative endpoint costs one request, not an outage.
 */
export class LenientCompletions extends ChatOpenAICompletions {
  // one implementation for both overloads of the base class
  override completionWithRetry(request: any, requestOptions?: OpenAI.RequestOptions): Promise<any> {
    const r = request as Request;
    if (r.stream || r.response_format?.type !== 'json_schema') return super.completionWithRetry(request, requestOptions);
    const { maxRetries, ...sdkOptions } = (requestOptions ?? {}) as OpenAI.RequestOptions & { maxRetries?: number };
    const clientOptions = this._getClientOptions(sdkOptions);
    // as the base class does it, with create() instead of parse()
    return this.caller.callWithOptions({ maxRetries } as never, async () => {
      try {
        return await this.client.chat.completions.create(r, clientOptions);
      } catch (e) {
        throw wrapOpenAIClientError(e);
      }
    });
  }
}
