import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';

import { AppConfig } from '../../config/app-config';
import { ToolRegistry } from '../tool-registry.service';
import { setSourcedPolicy, type ToolPolicy } from '../tool-risk';
import type { A2aAgentConfig } from './a2a.settings';
import { a2aToolName, describeCard, skillNames } from './a2a-card';
import { askRemote, connectRemoteAgent, type RemoteAgent, RemoteContexts } from './a2a-remote';

/** The first wait before fetching a card again; it doubles up to A2A_RETRY_MAX_MS. */
const FIRST_RETRY_MS = 250;
/** Start-up waits at most this long for the first attempts (a slow agent joins later). */
const START_WAIT_MS = 5_000;

/**
 * A remote agent's calls: high risk (after untrusted text, only with consent, and never with arguments carrying
 * that text's words: the message goes to a third party), its answer untrusted text that taints the thread, and
 * each call recorded in the tool ledger (it acts outside this service).
 */
const A2A_POLICY: ToolPolicy = { risk: 'high', untrustedOutput: true, network: true };

export type A2aAgentStatus =
  | { status: 'up'; card: { name: string; description: string; skills: string[]; streaming: boolean } }
  | { status: 'down'; error: string; attempts: number; retry_in_ms?: number };

interface AgentState {
  status: A2aAgentStatus;
  agent?: RemoteAgent;
  timer?: NodeJS.Timeout;
}

/**
 * A2A_AGENTS as tools: fetches each remote agent's card in the background (a down agent never stops the start;
 * it is tried again with a doubling wait), then registers the tool `a2a__<name>` described by the card, for the
 * agents its `agents` name (ToolRegistry grants it). Readiness reports each card's status (A2aHealthIndicator).
 */
@Injectable()
export class A2aAgentSource implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('A2aAgentSource');
  private readonly states = new Map<string, AgentState>();
  private readonly contexts = new RemoteContexts();
  private stopped = false;

  constructor(
    private readonly config: AppConfig,
    private readonly registry: ToolRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    const agents = Object.entries(this.config.a2aAgents);
    for (const [name] of agents) {
      this.states.set(name, { status: { status: 'down', error: 'card not fetched yet', attempts: 0 } });
      setSourcedPolicy(a2aToolName(name), A2A_POLICY);
      this.registry.markUnavailable(a2aToolName(name), 'the remote agent card was not fetched yet');
    }
    if (!this.config.tools.network) {
      for (const state of this.states.values())
        state.status = { status: 'down', error: 'outbound network access is disabled (TOOLS_NETWORK=false)', attempts: 0 };
      return;
    }
    const first = Promise.all(agents.map(([name, agent]) => this.attempt(name, agent)));
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, START_WAIT_MS).unref())]);
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const state of this.states.values()) clearTimeout(state.timer);
  }

  configured(): boolean {
    return this.states.size > 0;
  }

  status(): Record<string, A2aAgentStatus> {
    return Object.fromEntries([...this.states].map(([name, s]) => [name, s.status]));
  }

  /** What the model is told about the agent (its card), or undefined while the card is not fetched. */
  description(name: string): string | undefined {
    const card = this.states.get(name)?.agent?.card;
    return card && describeCard(card);
  }

  private async attempt(name: string, config: A2aAgentConfig): Promise<void> {
    const state = this.states.get(name)!;
    try {
      const network = { allowedPrivateHosts: this.config.tools.allowedPrivateHosts };
      const agent = await connectRemoteAgent(name, config, network);
      if (this.stopped) return;
      const { card } = agent;
      state.agent = agent;
      state.status = {
        status: 'up',
        card: {
          name: card.name,
          description: card.description,
          skills: skillNames(card),
          streaming: Boolean(card.capabilities?.streaming),
        },
      };
      this.registry.register(this.toolFor(agent));
      this.logger.log({ msg: 'a2a agent card fetched', agent: name, card: card.name });
    } catch (err) {
      this.retryLater(name, config, (err as Error).message);
    }
  }

  private retryLater(name: string, config: A2aAgentConfig, error: string): void {
    const state = this.states.get(name)!;
    if (this.stopped) return;
    const attempts = (state.status.status === 'down' ? state.status.attempts : 0) + 1;
    const wait = Math.min(this.config.a2aRetryMaxMs, FIRST_RETRY_MS * 2 ** (attempts - 1));
    state.status = { status: 'down', error: error.slice(0, 300), attempts, retry_in_ms: wait };
    this.logger.warn({ msg: 'a2a agent down', agent: name, error: state.status.error, retry_in_ms: wait });
    state.timer = setTimeout(() => void this.attempt(name, config), wait);
    state.timer.unref();
  }

  /** The agent as a tool: `{ message }` in, its answer out (the registry's guard wraps it as untrusted data). */
  private toolFor(agent: RemoteAgent): StructuredToolInterface {
    return tool(
      async ({ message }: { message: string }, config) => {
        const thread = config?.configurable?.thread_id as string | undefined;
        return askRemote(agent, message, { thread, signal: config?.signal, contexts: this.contexts });
      },
      {
        name: a2aToolName(agent.name),
        description: describeCard(agent.card),
        schema: z.object({ message: z.string().min(1).describe('the request for the remote agent, self-contained') }),
      },
    );
  }
}
