import { normalizeNamespaceSegment } from '@langchain/langgraph/stream';

import type { ThreadLogEvent } from '../../events/thread-event-log';

export interface AgentTreeNode {
  namespace: string[];
  status: string;
  graph_name: string;
  children?: AgentTreeNode[];
}

/**
 * The agent tree of a thread's latest run, from its events (`agent.getTree`): the root's lifecycle, and every
 * namespace the run's events came from, with its last lifecycle status (`started` when it had none).
 */
export function agentTreeOf(events: ThreadLogEvent[]): AgentTreeNode {
  const lastStart = events.findLastIndex(
    (e) => e.method === 'lifecycle' && e.params.namespace.length === 0 && lifecycleOf(e) === 'running',
  );
  const run = lastStart >= 0 ? events.slice(lastStart) : events;
  const nodes = new Map<string, AgentTreeNode>();
  const rootName = (run[0]?.params.data as { graph_name?: string } | undefined)?.graph_name ?? 'root';
  nodes.set('', { namespace: [], status: 'started', graph_name: rootName });
  for (const e of run) {
    const ns = e.params.namespace;
    for (let n = 1; n <= ns.length; n += 1) {
      const key = ns.slice(0, n).join('\0');
      if (!nodes.has(key))
        nodes.set(key, { namespace: ns.slice(0, n), status: 'started', graph_name: normalizeNamespaceSegment(ns[n - 1]!) });
    }
    if (e.method === 'lifecycle') {
      const node = nodes.get(ns.join('\0'))!;
      node.status = lifecycleOf(e) ?? node.status;
      const name = (e.params.data as { graph_name?: string }).graph_name;
      if (name) node.graph_name = name;
    }
  }
  return build(nodes, []);
}

function lifecycleOf(e: ThreadLogEvent): string | undefined {
  return (e.params.data as { event?: string } | null)?.event;
}

function build(nodes: Map<string, AgentTreeNode>, namespace: string[]): AgentTreeNode {
  const node = nodes.get(namespace.join('\0'))!;
  const children = [...nodes.values()]
    .filter((c) => c.namespace.length === namespace.length + 1 && namespace.every((s, i) => c.namespace[i] === s))
    .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
    .map((c) => build(nodes, c.namespace));
  return { namespace: node.namespace, status: node.status, graph_name: node.graph_name, ...(children.length ? { children } : {}) };
}
