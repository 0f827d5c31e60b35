import type { GraphJson } from './api';

const NODE_W = 132;
const NODE_H = 30;
const GAP_X = 18;
const GAP_Y = 46;
/** distance between the vertical lanes of edges routed around the nodes */
const LANE = 10;

type Edge = GraphJson['edges'][number];

interface Placed {
  id: string;
  x: number;
  y: number;
}

/** An edge drawn between two nodes, as an SVG path. */
interface Drawn {
  edge: Edge;
  d: string;
}

/** Edges that close a cycle (they lead back to a node on the current depth-first path from `__start__`). */
function backEdges(graph: GraphJson): Set<Edge> {
  const out = new Map<string, Edge[]>();
  for (const e of graph.edges) out.set(e.source, [...(out.get(e.source) ?? []), e]);
  const back = new Set<Edge>();
  const onPath = new Set<string>();
  const seen = new Set<string>();
  const visit = (id: string) => {
    seen.add(id);
    onPath.add(id);
    for (const e of out.get(id) ?? []) {
      if (onPath.has(e.target)) back.add(e);
      else if (!seen.has(e.target)) visit(e.target);
    }
    onPath.delete(id);
  };
  visit('__start__');
  for (const n of graph.nodes) if (!seen.has(n.id)) visit(n.id);
  return back;
}

/**
 * Layers: each node one below the deepest node with an edge into it (cycles broken at their back edge),
 * `__end__` last, so every forward edge points down. Nodes in neighbouring layers are joined by a curve;
 * back edges, self loops and edges that skip layers run in a lane of their own beside the nodes (back
 * edges left, the others right), so no edge crosses a node.
 */
export function layout(graph: GraphJson): { nodes: Placed[]; edges: Drawn[]; width: number; height: number } {
  const back = backEdges(graph);
  const forward = graph.edges.filter((e) => !back.has(e) && e.target !== '__end__');
  const layer = new Map<string, number>(graph.nodes.map((n) => [n.id, 0]));
  // longest path over the acyclic forward edges: at most one pass per node
  for (let pass = 0; pass < graph.nodes.length; pass += 1) {
    for (const e of forward) layer.set(e.target, Math.max(layer.get(e.target) ?? 0, (layer.get(e.source) ?? 0) + 1));
  }
  layer.set('__end__', Math.max(0, ...graph.nodes.filter((n) => n.id !== '__end__').map((n) => layer.get(n.id)!)) + 1);
  const rows: string[][] = [];
  for (const n of graph.nodes) (rows[layer.get(n.id)!] ??= []).push(n.id);
  const filled = rows.filter(Boolean);
  const rowOf = new Map(filled.flatMap((row, r) => row.map((id) => [id, r] as const)));

  const routed = graph.edges.filter((e) => rowOf.get(e.target)! !== rowOf.get(e.source)! + 1);
  const left = routed.filter((e) => back.has(e));
  const right = routed.filter((e) => !back.has(e));
  const inner = Math.max(1, ...filled.map((r) => r.length)) * (NODE_W + GAP_X) + GAP_X;
  const margin = left.length * LANE;
  const width = margin + inner + right.length * LANE;
  const nodes = filled.flatMap((row, r) => {
    const offset = margin + (inner - row.length * (NODE_W + GAP_X) + GAP_X) / 2;
    return row.map((id, i) => ({ id, x: offset + i * (NODE_W + GAP_X), y: GAP_X + r * (NODE_H + GAP_Y) }));
  });
  const at = new Map(nodes.map((n) => [n.id, n]));

  // a node first (or last) in its row can be left (or entered) through its side facing the lane
  const outermost = (id: string, side: 'left' | 'right') => {
    const row = filled[rowOf.get(id)!];
    return row[side === 'left' ? 0 : row.length - 1] === id;
  };
  const edges: Drawn[] = [];
  for (const edge of graph.edges) {
    const a = at.get(edge.source);
    const b = at.get(edge.target);
    if (!a || !b) continue;
    const [x1, y1, x2, y2] = [a.x + NODE_W / 2, a.y + NODE_H, b.x + NODE_W / 2, b.y];
    const lane = left.indexOf(edge) >= 0 ? left.indexOf(edge) : right.indexOf(edge);
    if (lane < 0) {
      const bend = (y2 - y1) / 2;
      edges.push({ edge, d: `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}` });
      continue;
    }
    // out of the source (its side, or down through the gap below it), along the lane, into the target
    // (its side, or down from the gap above it): the gaps between rows and the lanes hold no node
    const side = back.has(edge) ? 'left' : 'right';
    const laneX = side === 'left' ? margin - (lane + 0.5) * LANE : margin + inner + (lane + 0.5) * LANE;
    const sideX = (n: Placed) => (side === 'left' ? n.x : n.x + NODE_W);
    const drop = 8 + 5 * (lane % 3);
    const out = outermost(edge.source, side) ? `M${sideX(a)},${a.y + NODE_H / 2 + 6}` : `M${x1},${y1} V${y1 + drop}`;
    const into = outermost(edge.target, side) ? `V${b.y + NODE_H / 2 - 6} H${sideX(b)}` : `V${y2 - drop} H${x2} V${y2}`;
    edges.push({ edge, d: `${out} H${laneX} ${into}` });
  }
  return { nodes, edges, width, height: filled.length * (NODE_H + GAP_Y) - GAP_Y + 2 * GAP_X };
}

const label = (id: string) => (id === '__start__' ? 'start' : id === '__end__' ? 'end' : id);

/** The agent's graph (LangGraph's getGraph() JSON) as SVG; `current` highlighted, `visited` marked. */
export function GraphView(props: { graph: GraphJson; current?: string; visited: Set<string> }) {
  const { nodes, edges, width, height } = layout(props.graph);
  return (
    <svg class="graph" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label="agent graph">
      <defs>
        <marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L8,4 L0,8 z" />
        </marker>
      </defs>
      {edges.map(({ edge, d }, i) => (
        <path
          key={i}
          class={edge.conditional ? 'edge conditional' : 'edge'}
          data-source={edge.source}
          data-target={edge.target}
          d={d}
          marker-end="url(#arrow)"
        />
      ))}
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
