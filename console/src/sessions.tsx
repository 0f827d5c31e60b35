import type { Agent, SessionSummary } from './api';

/** Beside the chat: the agent (fixed once a session is open), a new session, the tenant's sessions by title. */
export function SessionsAside(props: {
  agents: Agent[];
  agent: string;
  onAgent: (name: string) => void;
  sessions: SessionSummary[];
  openId?: string;
  onNew: () => void;
  onOpen: (id: string) => void;
}) {
  return (
    <aside class="sessions">
      <label>
        Agent{' '}
        <select name="agent" value={props.agent} onChange={(e) => props.onAgent(e.currentTarget.value)} disabled={!!props.openId}>
          {props.agents.map((a) => (
            <option key={a.name} value={a.name} title={a.description}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={props.onNew}>
        New session
      </button>
      <ul>
        {props.sessions.map((s) => (
          <li key={s.session_id} class={s.session_id === props.openId ? 'active' : ''}>
            <button type="button" class="link title" title={s.session_id} onClick={() => props.onOpen(s.session_id)}>
              {s.title ?? `new session ${s.session_id.slice(0, 8)}`}
            </button>
            <div class="muted">
              {s.agent ?? '—'} · {new Date(s.updated_at).toLocaleString()}
            </div>
            {s.summary && <div class="muted summary">{s.summary}</div>}
          </li>
        ))}
      </ul>
    </aside>
  );
}
