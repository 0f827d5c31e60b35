import { randomUUID } from 'node:crypto';

import { type AgentCard, Role, type SendMessageRequest } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

import type { SafeFetchOptions } from '../general/network-guard';
import { ToolError } from '../general/tool-error';
import type { A2aAgentConfig } from './a2a.settings';
import { AnswerCollector, cutAnswer } from './a2a-answer';
import { checkInterfaces } from './a2a-card';
import { guardedFetch } from './guarded-fetch';

/** A remote agent whose card was fetched: the card and a client whose every request passes the SSRF guard. */
export interface RemoteAgent {
  name: string;
  config: A2aAgentConfig;
  card: AgentCard;
  client: Client;
}

/** Fetching the card may take at most this long (or the agent's `timeout_ms`, if shorter). */
const CARD_TIMEOUT_MS = 10_000;
const CARD_MAX_BYTES = 256 * 1024;
/** A best-effort remote cancel after a time-out waits at most this long. */
const CANCEL_TIMEOUT_MS = 5_000;
/** v1.0 peers, and v0.3 ones through the SDK's compatibility layer */
const legacyCompat = { enabled: true };

/**
 * Fetches the agent's card (through the guard, the configured headers sent to the card's origin only), checks
 * the URLs it asks to be called at, and builds a client over JSON-RPC or HTTP+JSON whose requests go through the
 * guard with the agent's time and size limits.
 */
export async function connectRemoteAgent(
  name: string,
  config: A2aAgentConfig,
  network: Pick<SafeFetchOptions, 'allowedPrivateHosts' | 'lookup'>,
): Promise<RemoteAgent> {
  const credentials = config.headers ? { origin: new URL(config.card_url).origin, headers: config.headers } : undefined;
  const cardFetch = guardedFetch(
    { ...network, timeoutMs: Math.min(CARD_TIMEOUT_MS, config.timeout_ms), maxBytes: CARD_MAX_BYTES },
    credentials,
  );
  const callFetch = guardedFetch({ ...network, timeoutMs: config.timeout_ms, maxBytes: config.max_bytes }, credentials);
  const cardResolver = new DefaultAgentCardResolver({ fetchImpl: cardFetch, legacyCompat });
  const card = await cardResolver.resolve(config.card_url, '');
  await checkInterfaces(card, { ...network, timeoutMs: CARD_TIMEOUT_MS, maxBytes: 0 });
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl: callFetch, legacyCompat }),
      new RestTransportFactory({ fetchImpl: callFetch, legacyCompat }),
    ],
    cardResolver,
  });
  return { name, config, card, client: await factory.createFromAgentCard(card) };
}

/**
 * The remote context of each of our threads, so a follow-up in a thread continues the remote conversation. Kept
 * in this process's memory (bounded; the oldest go first): after a restart, or on another replica, the next call
 * starts a new remote context.
 */
export class RemoteContexts {
  private readonly byKey = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  get(agent: string, thread: string | undefined): string | undefined {
    return thread ? this.byKey.get(`${agent}\0${thread}`) : undefined;
  }

  set(agent: string, thread: string | undefined, contextId: string | undefined): void {
    if (!thread || !contextId) return;
    const key = `${agent}\0${thread}`;
    this.byKey.delete(key);
    this.byKey.set(key, contextId);
    if (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value!);
  }
}

function request(text: string, contextId: string | undefined): SendMessageRequest {
  const part = { content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
  const message = {
    messageId: randomUUID(),
    contextId: contextId ?? '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [part],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/**
 * Sends `text` to the remote agent and returns its answer, cut at `max_chars`: streamed when its card says it
 * streams, else one blocking call. The whole call is limited to `timeout_ms` (and stops with `signal`, the run's);
 * past the limit the request is aborted, the remote task cancelled (best effort) and the model gets a ToolError.
 */
export async function askRemote(
  agent: RemoteAgent,
  text: string,
  opts: { thread?: string; signal?: AbortSignal; contexts: RemoteContexts },
): Promise<string> {
  const { name, config, client } = agent;
  const timeout = AbortSignal.timeout(config.timeout_ms);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const params = request(text, opts.contexts.get(name, opts.thread));
  const answer = new AnswerCollector();
  try {
    if (agent.card.capabilities?.streaming) {
      for await (const event of client.sendMessageStream(params, { signal })) answer.add(event);
    } else {
      answer.addResult(await client.sendMessage(params, { signal }));
    }
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    if (timeout.aborted) {
      cancelRemoteTask(agent, answer.taskId);
      throw new ToolError(`remote agent "${name}" did not answer within ${config.timeout_ms} ms; the call was stopped`);
    }
    const reason = err instanceof Error ? err.message : String(err);
    throw new ToolError(`remote agent "${name}" failed: ${reason.slice(0, 300)}`);
  }
  opts.contexts.set(name, opts.thread, answer.contextId);
  const failure = answer.failure();
  if (failure) throw new ToolError(`remote agent "${name}" ${failure}`);
  const out = answer.text();
  if (!out.trim()) throw new ToolError(`remote agent "${name}" sent no text answer`);
  return cutAnswer(out, config.max_chars);
}

/** After a time-out: ask the remote agent to cancel the task it started, without waiting for it. */
function cancelRemoteTask(agent: RemoteAgent, taskId: string | undefined): void {
  if (!taskId) return;
  void agent.client
    .cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) })
    .catch(() => undefined);
}
