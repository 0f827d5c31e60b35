import type { ChatResult, GraphJson, RunSummary, Trace } from './api';
import { fmtMs, plural } from './format';
import { GraphView } from './graph';

/** One graph step as the stream reported it: the node, when it ended, and the tokens it streamed. */
export interface Step {
  step: number;
  node: string;
  ms: number;
  tokens: number;
}

export interface LiveRun {
  runId?: string;
  current?: string;
  steps: Step[];
  result?: ChatResult;
  trace?: Trace;
}

function TraceView({ trace }: { trace: Trace }) {
  return (
    <div class="trace" data-run={trace.run_id}>
      <p class="muted">
        run {trace.run_id.slice(0, 8)} · {trace.status} · {plural(trace.usage.llm_calls, 'model call')} · {trace.usage.prompt_tokens}+
        {trace.usage.completion_tokens} tokens
      </p>
      {trace.model_calls.length > 0 && (
        <table class="model-calls">
          <thead>
            <tr>
              <th>model call (node)</th>
              <th>time</th>
              <th>tokens in/out</th>
            </tr>
          </thead>
          <tbody>
            {trace.model_calls.map((c, i) => (
              <tr key={i} class={c.error ? 'failed' : ''}>
                <td>
                  {c.node}
                  {c.cached ? ' (cache)' : ''}
                  {c.error ? ` — ${c.error}` : ''}
                </td>
                <td>{fmtMs(c.ms)}</td>
                <td>
                  {c.prompt_tokens}/{c.completion_tokens}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {trace.tool_history.length > 0 && (
        <ul class="tool-history">
          {trace.tool_history.map((t, i) => (
            <li key={i}>
              tool <b>{t.name}</b>({JSON.stringify(t.args)}) → {t.status}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Beside the chat: the graph with the current node, the steps of the live run, and the session's past runs. */
export function RunPanel(props: {
  graph?: GraphJson;
  live: LiveRun;
  runs: RunSummary[];
  pastTrace?: Trace;
  onPickRun: (runId: string) => void;
}) {
  const { live } = props;
  const visited = new Set(live.steps.map((s) => s.node));
  return (
    <aside class="run-panel">
      <h2>Run</h2>
      {props.graph ? <GraphView graph={props.graph} current={live.current} visited={visited} /> : <p class="muted">no graph</p>}
      {/* progress events arrive as each node finishes; token events while a node's model call streams */}
      <p class="muted legend">
        <span class="swatch current" /> latest step (or the node streaming tokens) <span class="swatch visited" /> visited
      </p>
      {live.steps.length > 0 && (
        <table class="steps">
          <thead>
            <tr>
              <th>#</th>
              <th>node</th>
              <th>duration</th>
              <th>streamed tokens</th>
            </tr>
          </thead>
          <tbody>
            {live.steps.map((s) => (
              <tr key={s.step} data-node={s.node}>
                <td>{s.step}</td>
                <td>{s.node}</td>
                <td>{fmtMs(s.ms)}</td>
                <td>{s.tokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {live.trace && <TraceView trace={live.trace} />}
      <h3>Past runs of this session</h3>
      {props.runs.length === 0 && <p class="muted">none yet</p>}
      <ul class="past-runs">
        {props.runs.map((r) => (
          <li key={r.run_id}>
            <button type="button" class="link" onClick={() => props.onPickRun(r.run_id)}>
              {new Date(r.created_at).toLocaleTimeString()} · {r.status} · {r.mode} · {plural(r.llm_calls, 'model call')}
            </button>
          </li>
        ))}
      </ul>
      {props.pastTrace && <TraceView trace={props.pastTrace} />}
    </aside>
  );
}
