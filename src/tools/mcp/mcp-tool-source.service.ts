import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { ToolRegistry } from '../tool-registry.service';
import { mcpPolicy, setSourcedPolicy } from '../tool-risk';
import type { McpServerConfig } from './mcp.settings';
import { connectMcpServer, type McpConnection } from './mcp-connection';

/** The first wait before trying a server that is down again; it doubles up to MCP_RETRY_MAX_MS. */
const FIRST_RETRY_MS = 250;
/** Start-up waits at most this long for a server's first attempt (a slow server joins later). */
const START_WAIT_MS = 10_000;

export interface McpServerStatus {
  status: 'up' | 'down';
  tools: string[];
  error?: string;
  /** when down: the attempts so far and the wait before the next */
  attempts?: number;
  retry_in_ms?: number;
}

interface ServerState extends McpServerStatus {
  connection?: McpConnection;
  timer?: NodeJS.Timeout;
}

/**
 * MCP_SERVERS as tool sources: connects to each server at start, registers its tools in the ToolRegistry (with
 * the policy of the server's `risk`), and keeps trying a server that is down — at start or later — in the
 * background with a doubling wait. A server that is down never stops the start-up: readiness reports it
 * (McpHealthIndicator) and the agents simply lack its tools until it answers.
 */
@Injectable()
export class McpToolSource implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpToolSource');
  private readonly states = new Map<string, ServerState>();
  private stopped = false;

  constructor(
    private readonly config: AppConfig,
    private readonly registry: ToolRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    const servers = Object.entries(this.config.mcpServers);
    for (const [name] of servers) this.states.set(name, { status: 'down', tools: [], error: 'not connected yet', attempts: 0 });
    const first = Promise.all(servers.map(([name, server]) => this.attempt(name, server)));
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, START_WAIT_MS).unref())]);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const state of this.states.values()) clearTimeout(state.timer);
    await Promise.all([...this.states.values()].map((s) => s.connection?.close().catch(() => undefined)));
  }

  configured(): boolean {
    return this.states.size > 0;
  }

  status(): Record<string, McpServerStatus> {
    const out: Record<string, McpServerStatus> = {};
    for (const [name, { status, tools, error, attempts, retry_in_ms }] of this.states)
      out[name] = status === 'up' ? { status, tools } : { status, tools, error, attempts, retry_in_ms };
    return out;
  }

  private async attempt(name: string, server: McpServerConfig): Promise<void> {
    const state = this.states.get(name)!;
    try {
      const connection = await connectMcpServer(name, server, {
        onClose: () => this.lost(name, server),
        onStderr: (line) => this.logger.debug({ msg: 'mcp server stderr', server: name, line }),
      });
      if (this.stopped) return void (await connection.close());
      for (const tool of connection.tools) {
        setSourcedPolicy(tool.name, mcpPolicy(server.risk));
        this.registry.register(tool, name);
      }
      Object.assign(state, { status: 'up', connection, tools: connection.tools.map((t) => t.name), error: undefined, attempts: 0 });
      this.logger.log({ msg: 'mcp server connected', server: name, tools: state.tools });
    } catch (err) {
      this.retryLater(name, server, (err as Error).message);
    }
  }

  /** The connection ended (a stdio server exited): its tools stay listed, their calls fail until it is back. */
  private lost(name: string, server: McpServerConfig): void {
    const state = this.states.get(name);
    if (this.stopped || !state || state.status !== 'up') return;
    state.connection = undefined;
    this.retryLater(name, server, 'connection closed');
  }

  private retryLater(name: string, server: McpServerConfig, error: string): void {
    const state = this.states.get(name)!;
    if (this.stopped) return;
    const attempts = (state.attempts ?? 0) + 1;
    const wait = Math.min(this.config.mcpRetryMaxMs, FIRST_RETRY_MS * 2 ** (attempts - 1));
    Object.assign(state, { status: 'down', error: error.slice(0, 300), attempts, retry_in_ms: wait });
    this.logger.warn({ msg: 'mcp server down', server: name, error: state.error, retry_in_ms: wait });
    state.timer = setTimeout(() => void this.attempt(name, server), wait);
    state.timer.unref();
  }
}
