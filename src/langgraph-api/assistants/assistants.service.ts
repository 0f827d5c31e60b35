import { randomUUID } from 'node:crypto';

import { v5 as uuidV5 } from '@langchain/core/utils/uuid';
import { Injectable } from '@nestjs/common';

import type { AgentDefinition } from '../../agents/agent-definition';
import { AgentRegistry } from '../../agents/agent-registry.service';
import { type AuthFilters, matchesFilters } from '../../auth/auth-filters';
import { ownerRuleOf } from '../../auth/resource-access';
import { LanggraphCustomAuth } from '../auth/custom-auth';
import {
  AssistantExistsException,
  AssistantNotFoundException,
  AssistantVersionNotFoundException,
  GraphNotFoundException,
  NoAssistantForRunException,
  SystemAssistantReadOnlyException,
} from '../errors';
import { graphOf, type LangGraphGraph } from '../graph-access';
import { type AssistantCreateBody, type AssistantPatchBody, type AssistantSearchBody } from '../schemas';
import { type AssistantFilter, AssistantsRepository, type AssistantWire } from './assistants.repository';
import { GraphSchemas } from './graph-schemas';

/** The namespace of the system assistants' ids: LangGraph Platform's (`NAMESPACE_GRAPH`, the RFC 4122 URL namespace). */
const NAMESPACE_GRAPH = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/** A graph's system assistant id, as LangGraph Platform derives it: uuid5 of the graph id. */
export function systemAssistantId(graphId: string): string {
  return uuidV5(graphId, NAMESPACE_GRAPH);
}

/** Whether the filter lets the assistant through: a custom handler's on every one, the owner rule's on the tenant's own. */
function passes(assistant: AssistantWire, filters: AuthFilters | undefined): boolean {
  // a built-in assistant (no stored assistant can take its id: create refuses it)
  if (ownerRuleOf(filters) && assistant.assistant_id === systemAssistantId(assistant.graph_id)) return true;
  return matchesFilters(assistant.metadata, filters);
}

/** When the built-in assistants "were created": the process's start. */
const BOOT = new Date().toISOString();

function contains(haystack: unknown, needle: unknown): boolean {
  if (needle === null || typeof needle !== 'object') return haystack === needle;
  if (Array.isArray(needle)) return Array.isArray(haystack) && needle.every((n) => haystack.some((h) => contains(h, n)));
  if (haystack === null || typeof haystack !== 'object' || Array.isArray(haystack)) return false;
  return Object.entries(needle).every(([k, v]) => contains((haystack as Record<string, unknown>)[k], v));
}

/**
 * Assistants: every graph of the registry is a built-in ("system") assistant whose id is its name; a tenant
 * creates its own assistants (a graph plus config, context, metadata), versioned on every change.
 */
@Injectable()
export class AssistantsService {
  private ids?: Map<string, string>;

  constructor(
    private readonly registry: AgentRegistry,
    private readonly repo: AssistantsRepository,
    private readonly graphSchemas: GraphSchemas,
    private readonly auth: LanggraphCustomAuth,
  ) {}

  /**
   * The assistant as the custom auth (langgraph.json `auth`) lets the caller see it for `action`: one its filter
   * hides is answered as a missing one, built-in assistants included (as the platform's). Under the built-in owner
   * rule the built-in assistants are everyone's.
   */
  private async visible(
    tenantId: string,
    id: string,
    action: string,
    value: Record<string, unknown> = {},
    missing: (id: string) => Error = (i) => new AssistantNotFoundException(i),
  ): Promise<AssistantWire> {
    const filters = await this.auth.authorize('assistants', action, { ...value, assistant_id: id });
    const found = this.system(id) ?? (await this.repo.get(tenantId, id));
    if (!found || !passes(found, filters)) throw missing(id);
    return found;
  }

  /** The system assistant of a graph, found by its graph id or by its platform id (uuid5 of the graph id). */
  private system(id: string): AssistantWire | null {
    const name = this.registry.get(id) ? id : this.systemIds().get(id.toLowerCase());
    const def = name ? this.registry.get(name) : undefined;
    if (!name || !def) return null;
    return {
      assistant_id: systemAssistantId(name),
      graph_id: name,
      config: def.defaults?.config ?? {},
      context: def.defaults?.context ?? {},
      metadata: { created_by: 'system' },
      version: 1,
      name,
      description: def.description ?? null,
      created_at: BOOT,
      updated_at: BOOT,
    };
  }

  /** platform id → graph id, for the registry's graphs */
  private systemIds(): Map<string, string> {
    const names = this.registry.names();
    if (this.ids?.size !== names.length) this.ids = new Map(names.map((n) => [systemAssistantId(n), n]));
    return this.ids;
  }

  async create(tenantId: string, body: AssistantCreateBody): Promise<AssistantWire> {
    this.graph(body.graph_id);
    const id = body.assistant_id ?? randomUUID();
    const value: Record<string, unknown> = { ...body, assistant_id: id, metadata: { ...(body.metadata ?? {}) } };
    const filters = await this.auth.authorize('assistants', 'create', value);
    const existing = this.system(id);
    if (existing) {
      if (body.if_exists === 'do_nothing') return existing;
      throw new AssistantExistsException(id);
    }
    const created = await this.repo.insert(tenantId, id, {
      graph_id: body.graph_id,
      config: body.config ?? {},
      context: body.context ?? {},
      metadata: (value.metadata as Record<string, unknown> | undefined) ?? {},
      name: body.name || body.graph_id,
      description: body.description ?? null,
    });
    if (created) return created;
    // an existing assistant the caller may not see is "already exists" (as LangGraph Server), never touched
    const found = body.if_exists === 'do_nothing' ? await this.repo.get(tenantId, id) : null;
    if (found && passes(found, filters)) return found;
    throw new AssistantExistsException(id);
  }

  async get(tenantId: string, id: string): Promise<AssistantWire> {
    return this.visible(tenantId, id, 'read');
  }

  /** The id an assistant is stored under: a graph id stands for its system assistant's. */
  canonicalId(id: string): string {
    return this.system(id)?.assistant_id ?? id;
  }

  /**
   * The assistant a run names (an assistant id or a graph id), as the caller can read it; else LangGraph Server's
   * "No assistant found for".
   */
  async forRun(tenantId: string, id: string): Promise<AssistantWire> {
    const filters = await this.auth.authorize('assistants', 'read', { assistant_id: id });
    // a langgraph.json handler's assistant filter is not applied to the assistant a run names: the platform checks
    // the run's thread (`threads:create_run`) only, so its examples' `{owner}` filters leave the graphs runnable
    const applied = ownerRuleOf(filters) ? filters : undefined;
    const found = this.system(id) ?? (await this.repo.get(tenantId, id));
    if (!found || !passes(found, applied)) throw new NoAssistantForRunException(id);
    return found;
  }

  async patch(tenantId: string, id: string, body: AssistantPatchBody): Promise<AssistantWire> {
    if (this.system(id)) throw new SystemAssistantReadOnlyException(id);
    // the metadata goes through the auth (the built-in owner rule keeps the owner in it)
    const value: Record<string, unknown> = body.metadata ? { metadata: { ...body.metadata } } : {};
    await this.visible(tenantId, id, 'update', value);
    if (body.graph_id) this.graph(body.graph_id);
    const updated = await this.repo.patch(tenantId, id, {
      graph_id: body.graph_id ?? undefined,
      config: body.config ?? undefined,
      context: body.context ?? undefined,
      metadata: (value.metadata as Record<string, unknown> | undefined) ?? undefined,
      name: body.name ?? undefined,
      description: body.description ?? undefined,
    });
    if (!updated) throw new AssistantNotFoundException(id);
    return updated;
  }

  async delete(tenantId: string, id: string): Promise<string[]> {
    if (this.system(id)) throw new SystemAssistantReadOnlyException(id);
    await this.visible(tenantId, id, 'delete');
    if (!(await this.repo.delete(tenantId, id))) throw new AssistantNotFoundException(id);
    return [id];
  }

  /** Built-in and stored assistants matching the filter, sorted and paged. */
  async search(tenantId: string, q: AssistantSearchBody): Promise<{ items: Array<Partial<AssistantWire>>; total: number }> {
    const all = await this.matching(tenantId, q);
    const by: keyof AssistantWire = q.sort_by ?? 'created_at';
    const dir = (q.sort_order ?? 'desc') === 'desc' ? -1 : 1;
    all.sort((a, b) => dir * String(a[by] ?? '').localeCompare(String(b[by] ?? '')) || dir * a.assistant_id.localeCompare(b.assistant_id));
    const page = all.slice(q.offset, q.offset + q.limit);
    const select = q.select;
    const items = select?.length ? page.map((a) => Object.fromEntries(Object.entries(a).filter(([k]) => select.includes(k)))) : page;
    return { items, total: all.length };
  }

  async count(tenantId: string, f: AssistantFilter): Promise<number> {
    return (await this.matching(tenantId, f)).length;
  }

  private async matching(tenantId: string, f: AssistantFilter): Promise<AssistantWire[]> {
    const filters = await this.auth.authorize('assistants', 'search', { ...f });
    const builtIn = this.registry
      .names()
      .map((n) => this.system(n)!)
      .filter(
        (a) =>
          (!f.graph_id || a.graph_id === f.graph_id) &&
          (!f.name || a.name.toLowerCase().includes(f.name.toLowerCase())) &&
          (!f.metadata || contains(a.metadata, f.metadata)),
      );
    return [...builtIn, ...(await this.repo.list(tenantId, f))].filter((a) => passes(a, filters));
  }

  async versions(tenantId: string, id: string, metadata: Record<string, unknown> | null | undefined, limit: number, offset: number) {
    await this.visible(tenantId, id, 'read');
    const sys = this.system(id);
    if (sys) {
      const { updated_at: _updated, ...version } = sys;
      return offset === 0 && (!metadata || contains(sys.metadata, metadata)) ? [version] : [];
    }
    const versions = await this.repo.versions(tenantId, id, metadata, limit, offset);
    if (versions.length === 0 && !(await this.repo.get(tenantId, id))) throw new AssistantNotFoundException(id);
    return versions;
  }

  async setLatest(tenantId: string, id: string, version: number): Promise<AssistantWire> {
    await this.visible(tenantId, id, 'update');
    const sys = this.system(id);
    if (sys) {
      if (version !== 1) throw new AssistantVersionNotFoundException(id, version);
      return sys;
    }
    const result = await this.repo.setLatest(tenantId, id, version);
    if (result === 'no-assistant') throw new AssistantNotFoundException(id);
    if (result === 'no-version') throw new AssistantVersionNotFoundException(id, version);
    return result;
  }

  /** The compiled graph of an assistant the tenant can see. */
  async graphOfAssistant(tenantId: string, id: string): Promise<{ assistant: AssistantWire; graph: LangGraphGraph }> {
    const assistant = await this.get(tenantId, id);
    return { assistant, graph: graphOf(this.graph(assistant.graph_id)) };
  }

  async drawable(tenantId: string, id: string, xray: boolean | number): Promise<Record<string, unknown>> {
    const { assistant, graph } = await this.graphOfAssistant(tenantId, id);
    const drawable = await graph.getGraphAsync({ ...(assistant.config as object), xray: xray || undefined });
    return drawable.toJSON();
  }

  /** The assistant's graph's schemas; the context schema is the config schema (one and the same in LangGraph.js, as the reference serves it). */
  async schemas(tenantId: string, id: string, waitMs?: number): Promise<Record<string, unknown>> {
    const { assistant, graph } = await this.graphOfAssistant(tenantId, id);
    const agent = this.graph(assistant.graph_id);
    // `waitMs`: answer by then, with the state channels' schemas while a source parse goes on (GraphSchemas.within)
    const schema = await (waitMs === undefined ? this.graphSchemas.of(agent, graph) : this.graphSchemas.within(agent, graph, waitMs));
    return {
      graph_id: assistant.graph_id,
      input_schema: schema.input,
      output_schema: schema.output,
      state_schema: schema.state,
      config_schema: schema.config,
      context_schema: schema.config,
    };
  }

  /** The schemas of the graph's subgraphs, by namespace (`child`, `child|grandchild` when recursing). */
  async subgraphs(tenantId: string, id: string, namespace: string | undefined, recurse: boolean): Promise<Record<string, unknown>> {
    const { assistant, graph } = await this.graphOfAssistant(tenantId, id);
    const agent = this.graph(assistant.graph_id);
    const out: Record<string, unknown> = {};
    if (!graph.getSubgraphsAsync) return out;
    for await (const [ns, sub] of graph.getSubgraphsAsync(namespace, recurse)) out[ns] = await this.graphSchemas.of(agent, sub, ns);
    return out;
  }

  /** What a `command.goto` may name in a graph: its nodes (but `__start__`) and `__end__`; null when it does not list them. */
  gotoTargets(graphId: string): string[] | null {
    const nodes = graphOf(this.graph(graphId)).nodes;
    return nodes ? [...Object.keys(nodes).filter((n) => n !== '__start__'), '__end__'] : null;
  }

  private graph(graphId: string): AgentDefinition {
    const def = this.registry.get(graphId);
    if (!def) throw new GraphNotFoundException(graphId, this.registry.names());
    return def;
  }
}
