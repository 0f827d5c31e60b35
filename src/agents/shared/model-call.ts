import type { BaseMessage } from '@langchain/core/messages';
import type { Runnable, RunnableConfig } from '@langchain/core/runnables';

import { toModelUnavailable } from '../../llm/model-errors';
import { textOf } from './text';

/**
 * A free-text model call (answers, the supervisor's routing): any failure of the call — after the client's
 * retries, a malformed body included — becomes a ModelUnavailableError, so every agent ends a model outage the
 * same way; cancellation propagates unchanged. JSON decisions use `decideJson`, which maps failures alike.
 */
export async function askModel(
  model: Runnable<BaseMessage[], BaseMessage>,
  messages: BaseMessage[],
  config: RunnableConfig,
): Promise<string> {
  try {
    return textOf((await model.invoke(messages, config)).content);
  } catch (err) {
    throw toModelUnavailable(err, config.signal);
  }
}
