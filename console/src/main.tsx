import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import {
  type Agent,
  api,
  ApiError,
  type ChatResult,
  type GraphJson,
  postSse,
  type SessionDetail,
  type SessionSummary,
  storedKey,
  storeKey,
  type Trace,
} from './api';
import { Composer, needsContract } from './composer';
import { plural } from './format';
import { KnowledgeTab } from './knowledge';
import { type LiveRun, RunPanel } from './run-panel';
import { SessionsAside } from './sessions';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  result?: ChatResult;
}

const describe = (err: unknown) =>
  err instanceof ApiError ? `${err.status} ${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);

function KeyForm({ onSaved }: { onSaved: () => void }) {
  const [key, setKey] = useState(storedKey());
  return (
    <form
      class="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        storeKey(key.trim());
        onSaved();
      }}
    >
      <input
        type="password"
        name="api-key"
        placeholder="API key (when auth is on)"
        value={key}
        onInput={(e) => setKey(e.currentTarget.value)}
      />
      <button type="submit">Use key</button>
    </form>
  );
}

function Answer({ turn }: { turn: Turn }) {
  const r = turn.result;
  return (
    <div class={`msg ${turn.role}`}>
      <div class="content">{turn.content || (turn.role === 'assistant' && !r ? '…' : '')}</div>
      {r?.error && <div class="run-error">{`${r.error.code}: ${r.error.message}`}</div>}
      {r && r.tool_calls.length > 0 && (
        <ul class="tool-calls">
          {r.tool_calls.map((t, i) => (
            <li key={i}>
              tool {t.name}({JSON.stringify(t.args)}) → {t.status}
            </li>
          ))}
        </ul>
      )}
      {r && r.sources.length > 0 && (
        <ul class="sources">
          {r.sources.map((s, i) => (
            <li key={i}>
              source: {s.title ?? s.ref} <span class="muted">{s.kind}</span>
            </li>
          ))}
        </ul>
      )}
      {r && (
        <div class="muted meta">
          {r.agent} · {r.execution_time_ms} ms · {plural(r.llm_calls, 'model call')}
        </div>
      )}
    </div>
  );
}

function App() {
  const [tab, setTab] = useState<'chat' | 'knowledge'>('chat');
  const [error, setError] = useState<string>();
  const [noModel, setNoModel] = useState(false);
  const [agents, setAgents] = useState<Agent[]>([]);
  const [agent, setAgent] = useState<string>('');
  const [graph, setGraph] = useState<GraphJson>();
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [session, setSession] = useState<SessionDetail>();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [live, setLive] = useState<LiveRun>({ steps: [] });
  const [pastTrace, setPastTrace] = useState<Trace>();
  const [busy, setBusy] = useState(false);
  const [contractId, setContractId] = useState('');

  const report = (err: unknown) => setError(describe(err));
  const loadSessions = () => api<{ sessions: SessionSummary[] }>('GET', '/v1/sessions?limit=50').then((r) => setSessions(r.sessions));

  const connect = async () => {
    setError(undefined);
    try {
      const { agents } = await api<{ agents: Agent[] }>('GET', '/v1/agents');
      setAgents(agents);
      setAgent((current) => current || agents[0]?.name || '');
      await loadSessions();
    } catch (err) {
      report(err);
    }
    // readiness is public: it says whether a model is configured (without one, rules and tools answer)
    fetch('/health/ready')
      .then((r) => r.json())
      .then((h) => setNoModel(h?.checks?.model?.status === 'not_configured'))
      .catch(() => undefined);
  };
  useEffect(() => void connect(), []);

  useEffect(() => {
    if (!agent) return;
    api<GraphJson>('GET', `/assistants/${encodeURIComponent(agent)}/graph`).then(setGraph, report);
  }, [agent]);

  const openSession = async (id: string) => {
    try {
      const detail = await api<SessionDetail>('GET', `/v1/sessions/${encodeURIComponent(id)}`);
      setSession(detail);
      if (detail.agent) setAgent(detail.agent);
      setTurns(
        detail.messages
          .filter((m) => m.role === 'user' || m.role === 'assistant')
          .map((m) => ({ role: m.role as Turn['role'], content: m.content })),
      );
      setLive({ steps: [] });
      setPastTrace(undefined);
      // a contract session goes on about the contract its last turn was about
      if (detail.agent && needsContract(detail.agent) && detail.runs.length > 0) {
        const last = await api<ChatResult>('GET', `/v1/sessions/${encodeURIComponent(id)}/result`).catch(() => undefined);
        if (typeof last?.metadata.contract_id === 'string') setContractId(last.metadata.contract_id);
      }
    } catch (err) {
      report(err);
    }
  };

  const newSession = () => {
    setSession(undefined);
    setTurns([]);
    setLive({ steps: [] });
    setPastTrace(undefined);
  };

  const pickRun = (runId: string) => {
    if (!session) return;
    api<Trace>('GET', `/v1/sessions/${encodeURIComponent(session.session_id)}/runs/${runId}/trace`).then(setPastTrace, report);
  };

  /** Streams one turn into the chat and the run panel; true when it went through. */
  const send = async (message: string): Promise<boolean> => {
    setError(undefined);
    setBusy(true);
    setPastTrace(undefined);
    setTurns((t) => [...t, { role: 'user', content: message }, { role: 'assistant', content: '' }]);
    const patchAnswer = (patch: Partial<Turn>) => setTurns((t) => [...t.slice(0, -1), { ...t[t.length - 1], ...patch }]);
    let streamed = '';
    let last = performance.now();
    let tokens = 0;
    let sessionId = session?.session_id;
    setLive({ steps: [], current: '__start__' });
    try {
      const body = {
        message,
        agent,
        ...(sessionId ? { session_id: sessionId } : {}),
        ...(needsContract(agent) && contractId ? { contract_id: contractId } : {}),
      };
      for await (const ev of postSse('/v1/chat/stream', body)) {
        if (ev.event === 'run') {
          sessionId = ev.data.session_id;
          setLive((l) => ({ ...l, runId: ev.data.run_id }));
        } else if (ev.event === 'token') {
          streamed += ev.data.content;
          tokens += 1;
          patchAnswer({ content: streamed });
          setLive((l) => ({ ...l, current: ev.data.node }));
        } else if (ev.event === 'progress') {
          const now = performance.now();
          const step = { step: ev.data.step, node: ev.data.node, ms: now - last, tokens };
          last = now;
          tokens = 0;
          setLive((l) => ({ ...l, current: ev.data.node, steps: [...l.steps, step] }));
        } else if (ev.event === 'result') {
          const result = ev.data as ChatResult;
          patchAnswer({ content: result.response, result });
          const trace = await api<Trace>('GET', `/v1/sessions/${encodeURIComponent(result.session_id)}/runs/${result.run_id}/trace`).catch(
            () => undefined,
          );
          setLive((l) => ({ ...l, result, trace }));
        }
      }
      if (sessionId) {
        setSession(await api<SessionDetail>('GET', `/v1/sessions/${encodeURIComponent(sessionId)}`));
        await loadSessions();
      }
      return true;
    } catch (err) {
      report(err);
      setTurns((t) => (t[t.length - 1]?.content ? t : t.slice(0, -1)));
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="app">
      <header>
        <h1>Agent Orchestrator</h1>
        <nav>
          <button type="button" class={tab === 'chat' ? 'active' : ''} onClick={() => setTab('chat')}>
            Chat
          </button>
          <button type="button" class={tab === 'knowledge' ? 'active' : ''} onClick={() => setTab('knowledge')}>
            Contracts &amp; documents
          </button>
        </nav>
        <KeyForm onSaved={() => void connect()} />
      </header>
      {noModel && (
        <div class="notice no-model">
          This service runs <b>without a model</b>: answers come from rules and tool outputs (set LLM_BASE_URL / LLM_MODEL to use one).
        </div>
      )}
      {error && (
        <div class="notice error" role="alert">
          {error}
          <button type="button" class="link" onClick={() => setError(undefined)}>
            dismiss
          </button>
        </div>
      )}
      {tab === 'knowledge' ? (
        <KnowledgeTab onError={report} />
      ) : (
        <main class="chat-layout">
          <SessionsAside
            agents={agents}
            agent={agent}
            onAgent={setAgent}
            sessions={sessions}
            openId={session?.session_id}
            onNew={newSession}
            onOpen={(id) => void openSession(id)}
          />
          <section class="chat">
            <div class="messages">
              {turns.length === 0 && <p class="muted">Ask the {agent || 'agent'} something.</p>}
              {turns.map((t, i) => (
                <Answer key={i} turn={t} />
              ))}
            </div>
            <Composer
              agent={agent}
              busy={busy}
              contractId={contractId}
              onContract={setContractId}
              onUpload={() => setTab('knowledge')}
              onError={report}
              onSend={send}
            />
          </section>
          <RunPanel graph={graph} live={live} runs={session?.runs ?? []} pastTrace={pastTrace} onPickRun={pickRun} />
        </main>
      )}
    </div>
  );
}

render(<App />, document.getElementById('root')!);
