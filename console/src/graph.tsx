import type { GraphJson } from './api';

const NODE_W = 132;
const NODE_H = 30;
const GAP_X = 18;
const GAP_Y = 46;

interface Placed {
  id: string;
  x: number;
  y: number;
}

/** A simple layered layout: each node's layer is its distance from `__start__` (breadth first), `__end__` last. */
export function layout(graph: GraphJson): { nodes: Placed[]; width: number; height: number } {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target]);
  const layer = new Map<string, number>([['__start__', 0]]);
  const queue = ['__start__'];
  while (queue.length) {
    const id = queue.shift()!;
    for (const to of next.get(id) ?? []) {
      if (to === '__end__' || layer.has(to)) continue;
      layer.set(to, layer.get(id)! + 1);
      queue.push(to);
    }
  }
  const deepest = Math.max(0, ...layer.values());
  for (const n of graph.nodes) if (!layer.has(n.id) && n.id !== '__end__') layer.set(n.id, deepest + 1);
  layer.set('__end__', Math.max(0, ...layer.values()) + 1);
  const rows: string[][] = [];
  for (const n of graph.nodes) (rows[layer.get(n.id)!] ??= []).push(n.id);
  const filled = rows.filter(Boolean);
  const widest = Math.max(1, ...filled.map((r) => r.length));
  const width = widest * (NODE_W + GAP_X) + GAP_X;
  const nodes = filled.flatMap((row, r) => {
    const offset = (width - row.length * (NODE_W + GAP_X) + GAP_X) / 2;
    return row.map((id, i) => ({ id, x: offset + i * (NODE_W + GAP_X), y: GAP_X + r * (NODE_H + GAP_Y) }));
  });
  return { nodes, width, height: filled.length * (NODE_H + GAP_Y) - GAP_Y + 2 * GAP_X };
}

const label = (id: string) => (id === '__start__' ? 'start' : id === '__end__' ? 'end' : id);

/** The agent's graph (LangGraph's getGraph() JSON) as SVG; `current` highlighted, `visited` marked. */
export function GraphView(props: { graph: GraphJson; current?: string; visited: Set<string> }) {
  const { nodes, width, height } = layout(props.graph);
  const at = new Map(nodes.map((n) => [n.id, n]));
  return (
    <svg class="graph" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label="agent graph">
      <defs>
        <marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L8,4 L0,8 z" />
        </marker>
      </defs>
      {props.graph.edges.map((e) => {
        const a = at.get(e.source);
        const b = at.get(e.target);
        if (!a || !b) return null;
        const [x1, y1] = [a.x + NODE_W / 2, a.y + NODE_H];
        const [x2, y2] = b.y > a.y ? [b.x + NODE_W / 2, b.y] : [b.x + NODE_W, b.y + NODE_H / 2];
        const bend = b.y > a.y ? (y2 - y1) / 2 : 40;
        return (
          <path
            key={`${e.source}->${e.target}`}
            class={e.conditional ? 'edge conditional' : 'edge'}
            d={`M${x1},${y1} C${x1},${y1 + bend} ${x2 + (b.y > a.y ? 0 : bend)},${y2 - (b.y > a.y ? bend : 0)} ${x2},${y2}`}
            marker-end="url(#arrow)"
          />
        );
      })}
      {nodes.map((n) => {
        const state = n.id === props.current ? 'current' : props.visited.has(n.id) ? 'visited' : '';
        return (
          <g key={n.id} class={`node ${state}`} data-node={n.id} transform={`translate(${n.x},${n.y})`}>
            <rect width={NODE_W} height={NODE_H} rx={n.id.startsWith('__') ? 15 : 5} />
            <text x={NODE_W / 2} y={NODE_H / 2 + 4} text-anchor="middle">
              {label(n.id)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
