import { memoryNamespace } from '../../src/memory/long-term/fact-store';
import type { Case, Res, Rule, Target, Who, World } from '../support/authz-matrix';
import { newMark } from '../support/authz-matrix';

/**
 * The rule of every route of the app: the resource and the action the policy decides, how to set up a resource
 * the owner owns, and who may. The matrix (authorization-matrix*.spec.ts) fails on a route of the app that has no
 * rule here, so a new route gets one.
 */

const authenticated = (who: Who) => who !== 'none';
const anyone = () => true;
/** the tenant's operator: an API key, an admin token (another tenant's admin acts on its own tenant) */
const operator = (who: Who) => who === 'apiKey' || who === 'admin' || who === 'otherTenant';
/** the owner's tenant, any of its users */
const sameTenant = (who: Who) => who !== 'none' && who !== 'otherTenant';
/** the owner, the tenant's operator, and (for threads under the custom auth's team handler) a teammate */
const owns =
  (sharedByTeam: boolean) =>
  (who: Who, w: World): boolean =>
    who === 'owner' ||
    who === 'admin' ||
    who === 'apiKey' ||
    (sharedByTeam && w.customAuth && who === 'teammate') ||
    (w.tenantShared && who === 'other');
const ownsThread = owns(true);
const ownsOther = owns(false);
/**
 * the service's own credentials (a token, an API key): operations views (/metrics, /docs, /info) are not the
 * LangGraph API, so langgraph.json's custom auth does not admit to them and its identities hear 401
 */
const serviceCredential = (who: Who, w: World) =>
  who !== 'none' && !(w.customAuth && (who === 'owner' || who === 'other' || who === 'teammate'));
/** documents and contracts: deleted by their uploader or the operator, never by another user (whatever the isolation) */
const mayDeleteKnowledge = (who: Who) => who === 'owner' || who === 'admin' || who === 'apiKey';

const status =
  (...codes: number[]) =>
  (r: Res) =>
    codes.includes(r.status);
/** a join of a run the caller may not see, by its id alone: a stream without events, as of an unknown run */
const noEvents = (r: Res) => r.status === 200 && !/^event:/m.test(r.text);
/** a run's join stream of a hidden thread: one error event, as LangGraph Server streams it */
const errorEvent = (r: Res) => r.status === 200 && /not found/i.test(r.text) && !/"run_id"/.test(r.text);
/** POST /threads/prune's answer: 200 with this count */
const prunedCount = (n: number) => (r: Res) => r.status === 200 && r.body?.pruned_count === n;
const NEVER = '0 0 1 1 *';
const input = (text: string) => ({ messages: [{ role: 'user', content: text }] });

/** a JSON-RPC call of A2A (0.3 method names unless an `A2A-Version: 1.0` header goes with it) */
const a2a = (agent: string, method: string, params: unknown) => ({
  method: 'POST',
  path: `/a2a/${agent}`,
  body: { jsonrpc: '2.0', id: 1, method, params },
});
/** an A2A refusal of a task or context the caller may not see: task-not-found, as an unknown one */
const taskNotFound = (r: Res) => r.status === 200 && r.body?.error?.code === -32001 && r.body?.result === undefined;
const cardPath = (head: string, id: string) => (head.startsWith('/a2a') ? `/a2a/${id}/.well-known/agent-card.json` : `${head}${id}`);

function owner(w: World) {
  return w.as.owner!;
}
function operatorOf(w: World) {
  return w.as.apiKey!;
}

/** A thread of the owner's with one finished run on it; its metadata and messages carry the marker. */
async function ownThread(w: World): Promise<Target> {
  const mark = newMark();
  const made = await owner(w)('POST', '/threads', { metadata: { graph_id: w.graph, secret: mark } });
  if (made.status !== 200) throw new Error(`set-up: thread ${made.status} ${made.text}`);
  const thread = made.body.thread_id as string;
  const run = await owner(w)('POST', `/threads/${thread}/runs/wait`, { assistant_id: w.graph, input: input(mark) });
  if (run.status !== 200) throw new Error(`set-up: run ${run.status} ${run.text}`);
  const runs = await owner(w)('GET', `/threads/${thread}/runs`);
  const state = await owner(w)('GET', `/threads/${thread}/state`);
  return { mark, thread, run: runs.body[0].run_id, checkpoint: state.body.checkpoint?.checkpoint_id };
}

async function ownAssistant(w: World): Promise<Target> {
  const mark = newMark();
  const made = await owner(w)('POST', '/assistants', { graph_id: w.graph, name: mark, metadata: { secret: mark } });
  if (made.status !== 200) throw new Error(`set-up: assistant ${made.status} ${made.text}`);
  return { mark, assistant: made.body.assistant_id };
}

/** an assistant of the owner's whose name (its MCP tool's) is not the marker: the caller names it, that is no leak */
async function ownTool(w: World): Promise<Target> {
  const t = await ownAssistant(w);
  const name = `tool-${newMark().slice(7)}`;
  const patched = await owner(w)('PATCH', `/assistants/${t.assistant}`, { name });
  if (patched.status !== 200) throw new Error(`set-up: tool ${patched.status} ${patched.text}`);
  return { ...t, listed: name };
}

async function ownCron(w: World): Promise<Target> {
  const t = await ownThread(w);
  const made = await owner(w)('POST', `/threads/${t.thread}/runs/crons`, {
    assistant_id: w.graph,
    schedule: NEVER,
    input: input(t.mark),
    metadata: { secret: t.mark },
  });
  if (made.status !== 200) throw new Error(`set-up: cron ${made.status} ${made.text}`);
  return { ...t, cron: made.body.cron_id };
}

async function ownItem(w: World): Promise<Target> {
  const mark = newMark();
  // the namespace's label is not the marker: another tenant's namespace of the same name is its own, not a leak
  const ns = ['matrix', `ns-${newMark().slice(7)}`];
  const put = await owner(w)('PUT', '/store/items', { namespace: ns, key: 'k', value: { secret: mark } });
  if (put.status >= 300) throw new Error(`set-up: store ${put.status} ${put.text}`);
  return { mark, ns, listed: ns[1] };
}

async function ownDocument(w: World): Promise<Target> {
  const mark = newMark();
  const made = await owner(w)('POST', '/v1/documents', { title: mark, content: `A note on retention. ${mark}` });
  if (made.status !== 201) throw new Error(`set-up: document ${made.status} ${made.text}`);
  return { mark, doc: made.body.document_id };
}

async function ownContract(w: World): Promise<Target> {
  const mark = newMark();
  const content = `# Services Agreement ${mark}\n\n## Article 1 (Purpose)\n\nThis Agreement sets out the services.\n\n## Article 2 (Term)\n\nOne year.\n`;
  const made = await owner(w)('POST', '/v1/contracts', { title: mark, content });
  if (made.status !== 201) throw new Error(`set-up: contract ${made.status} ${made.text}`);
  return { mark, contract: made.body.contract_id };
}

/** A fact the assistant remembers about the owner (put where the assistant keeps it); the marker is its text. */
async function ownMemory(w: World): Promise<Target> {
  const mark = newMark();
  const me = await owner(w)('GET', '/v1/memories');
  if (me.status !== 200) throw new Error(`set-up: memories ${me.status} ${me.text}`);
  const user = me.body.user_id as string;
  const value = { text: `my locker code is ${mark}`, kind: 'note', lang: 'en', source_session: null, created_at: new Date().toISOString() };
  const put = await owner(w)('PUT', '/store/items', { namespace: memoryNamespace(user), key: mark.toLowerCase(), value });
  if (put.status >= 300) throw new Error(`set-up: memory ${put.status} ${put.text}`);
  return { mark, user };
}
/** the owner's memories, by the operator's key: a user's own, an operator's by `user_id` */
const memoriesOf = (t: Target, who: Who) => (operator(who) ? `/v1/memories?user_id=${encodeURIComponent(t.user!)}` : '/v1/memories');
/** the owner's memories (the user themself, or the tenant's operator naming them) */
const mayReachMemories = (who: Who) => who === 'owner' || who === 'admin' || who === 'apiKey';
const memorySnapshot = async (t: Target, w: World) => (await operatorOf(w)('GET', memoriesOf(t, 'apiKey'))).body;

/** what the tenant's operator reads of the owner's thread: the thread, its state, its runs */
async function threadSnapshot(t: Target, w: World) {
  const op = operatorOf(w);
  const runs = await op('GET', `/threads/${t.thread}/runs`);
  return [(await op('GET', `/threads/${t.thread}`)).body, (await op('GET', `/threads/${t.thread}/state`)).body, runs.body];
}
const assistantSnapshot = async (t: Target, w: World) => [
  (await operatorOf(w)('GET', `/assistants/${t.assistant}`)).body,
  (await operatorOf(w)('POST', `/assistants/${t.assistant}/versions`, {})).body,
];
const cronSnapshot = async (t: Target, w: World) => [
  (await operatorOf(w)('POST', '/runs/crons/search', { limit: 1000 })).body,
  ...(await threadSnapshot(t, w)),
];
const cronCount = async (_t: Target, w: World) => (await operatorOf(w)('POST', '/runs/crons/count', {})).body;
const itemSnapshot = async (t: Target, w: World) => (await operatorOf(w)('GET', `/store/items?namespace=${t.ns!.join('.')}&key=k`)).body;
const docSnapshot = async (t: Target, w: World) => (await operatorOf(w)('GET', `/v1/documents/${t.doc}`)).body;
const contractSnapshot = async (t: Target, w: World) => (await operatorOf(w)('GET', `/v1/contracts/${t.contract}`)).body;

/** a case on a thread of the owner's: `allowed` by the thread rule, the thread read back unchanged after a denial */
function onThread(name: string, req: Case['req'], more: Partial<Case> = {}): Case {
  return { name, setup: ownThread, req, allowed: ownsThread, snapshot: threadSnapshot, ...more };
}
function onAssistant(name: string, req: Case['req'], more: Partial<Case> = {}): Case {
  return { name, setup: ownAssistant, req, allowed: ownsOther, snapshot: assistantSnapshot, ...more };
}
function onCron(name: string, req: Case['req'], more: Partial<Case> = {}): Case {
  return { name, setup: ownCron, req, allowed: ownsOther, snapshot: cronSnapshot, ...more };
}
function onItem(name: string, req: Case['req'], more: Partial<Case> = {}): Case {
  return { name, setup: ownItem, req, allowed: ownsOther, snapshot: itemSnapshot, ...more };
}
/** a create that touches nothing of anyone's: every authenticated caller may, in its own tenant */
function fresh(name: string, req: Case['req'], more: Partial<Case> = {}): Case {
  return { name, req, allowed: authenticated, ...more };
}
/** a listing after the owner made something: it shows the owner's resource exactly to who may see it */
function listing(name: string, setup: Case['setup'], req: Case['req'], visibleTo: Case['visibleTo']): Case {
  return { name, setup, req, allowed: authenticated, visibleTo };
}
/** a path the policy does not guard (liveness, the console, docs…): no credential needed, no tenant data */
function open(name: string, path: string, ok: Case['ok'] = status(200)): Case {
  return { name, req: () => ({ path }), allowed: anyone, ok };
}

const superstep = (w: World, text: string) => [{ updates: [{ values: { messages: [{ role: 'ai', content: text }] }, as_node: w.node }] }];

/** Builds the table for a world (some cases need its graph's node name). */
export function rules(w: World): Rule[] {
  const T = (t: Target) => `/threads/${t.thread}`;
  const R = (t: Target) => `/threads/${t.thread}/runs/${t.run}`;
  const A = (t: Target) => `/assistants/${t.assistant}`;
  const item = (t: Target) => `namespace=${t.ns!.join('.')}&key=k`;
  return [
    // ── REST v1: sessions are threads, jobs are runs seen through their session ─────────────────────────
    {
      route: 'POST /v1/chat',
      resource: 'threads',
      action: 'create_run',
      cases: [
        fresh('a turn on a new session', () => ({ method: 'POST', path: '/v1/chat', body: { message: 'hello', agent: w.graph } })),
        onThread('a turn naming the owner’s session', (t) => ({
          method: 'POST',
          path: '/v1/chat',
          body: { message: 'PLANTED', session_id: t.thread, agent: w.graph },
        })),
      ],
    },
    {
      route: 'POST /v1/chat/stream',
      resource: 'threads',
      action: 'create_run',
      cases: [
        onThread('a streamed turn naming the owner’s session', (t) => ({
          method: 'POST',
          path: '/v1/chat/stream',
          body: { message: 'PLANTED', session_id: t.thread, agent: w.graph },
        })),
      ],
    },
    {
      route: 'POST /v1/jobs',
      resource: 'threads',
      action: 'create_run',
      cases: [
        fresh('a job on a new session', () => ({ method: 'POST', path: '/v1/jobs', body: { message: 'hello', agent: w.graph } })),
        onThread('a job naming the owner’s session', (t) => ({
          method: 'POST',
          path: '/v1/jobs',
          body: { message: 'PLANTED', session_id: t.thread, agent: w.graph },
        })),
      ],
    },
    {
      route: 'GET /v1/jobs/:id',
      resource: 'threads',
      action: 'read',
      cases: [onThread('read a job', (t) => ({ path: `/v1/jobs/${t.run}` }))],
    },
    {
      route: 'GET /v1/jobs/:id/events',
      resource: 'threads',
      action: 'read',
      cases: [onThread('a job’s events', (t) => ({ path: `/v1/jobs/${t.run}/events` }))],
    },
    {
      route: 'POST /v1/jobs/:id/cancel',
      resource: 'threads',
      action: 'update',
      cases: [onThread('cancel a job', (t) => ({ method: 'POST', path: `/v1/jobs/${t.run}/cancel` }), { ok: status(200, 409) })],
    },
    {
      route: 'POST /v1/jobs/:id/approve',
      resource: 'threads',
      action: 'update',
      // the job is not waiting for a decision: allowed callers hear 409, the others that it does not exist
      cases: [onThread('approve a job’s tool call', (t) => ({ method: 'POST', path: `/v1/jobs/${t.run}/approve` }), { ok: status(409) })],
    },
    {
      route: 'POST /v1/jobs/:id/reject',
      resource: 'threads',
      action: 'update',
      cases: [onThread('reject a job’s tool call', (t) => ({ method: 'POST', path: `/v1/jobs/${t.run}/reject` }), { ok: status(409) })],
    },
    {
      route: 'GET /v1/sessions',
      resource: 'threads',
      action: 'search',
      cases: [listing('list sessions', ownThread, () => ({ path: '/v1/sessions' }), ownsThread)],
    },
    {
      route: 'GET /v1/sessions/:id',
      resource: 'threads',
      action: 'read',
      cases: [onThread('read a session', (t) => ({ path: `/v1/sessions/${t.thread}` }))],
    },
    {
      route: 'GET /v1/sessions/:id/result',
      resource: 'threads',
      action: 'read',
      // a LangGraph-API run of a langgraph.json graph has no ChatResult: allowed callers hear NO_RESULT
      cases: [
        onThread('a session’s result', (t) => ({ path: `/v1/sessions/${t.thread}/result` }), {
          ok: (r) => r.status === 200 || r.body?.error?.code === 'NO_RESULT',
        }),
      ],
    },
    {
      route: 'GET /v1/sessions/:id/runs/:runId/trace',
      resource: 'threads',
      action: 'read',
      cases: [onThread('a run’s trace', (t) => ({ path: `/v1/sessions/${t.thread}/runs/${t.run}/trace` }))],
    },
    {
      route: 'DELETE /v1/sessions/:id',
      resource: 'threads',
      action: 'delete',
      cases: [onThread('delete a session', (t) => ({ method: 'DELETE', path: `/v1/sessions/${t.thread}` }))],
    },
    { route: 'GET /v1/agents', resource: 'catalog', action: 'read', cases: [fresh('the agents', () => ({ path: '/v1/agents' }))] },
    { route: 'GET /v1/tools', resource: 'catalog', action: 'read', cases: [fresh('the tools', () => ({ path: '/v1/tools' }))] },
    // ── documents and contracts: the tenant's knowledge, deleted by its uploader or the operator ───────────
    {
      route: 'POST /v1/documents',
      resource: 'documents',
      action: 'create',
      cases: [fresh('upload a document', () => ({ method: 'POST', path: '/v1/documents', body: { title: 'n', content: 'a note' } }))],
    },
    {
      route: 'GET /v1/documents',
      resource: 'documents',
      action: 'search',
      cases: [listing('list documents', ownDocument, () => ({ path: '/v1/documents' }), sameTenant)],
    },
    {
      route: 'GET /v1/documents/:id',
      resource: 'documents',
      action: 'read',
      cases: [{ name: 'read a document', setup: ownDocument, req: (t) => ({ path: `/v1/documents/${t.doc}` }), allowed: sameTenant }],
    },
    {
      route: 'DELETE /v1/documents/:id',
      resource: 'documents',
      action: 'delete',
      cases: [
        {
          name: 'delete a document',
          setup: ownDocument,
          req: (t) => ({ method: 'DELETE', path: `/v1/documents/${t.doc}` }),
          allowed: mayDeleteKnowledge,
          snapshot: docSnapshot,
        },
      ],
    },
    {
      route: 'POST /v1/contracts',
      resource: 'contracts',
      action: 'create',
      cases: [
        fresh('upload a contract', () => ({
          method: 'POST',
          path: '/v1/contracts',
          body: { title: 'c', content: '## Article 1 (Purpose)\n\nServices.\n\n## Article 2 (Term)\n\nOne year.\n' },
        })),
      ],
    },
    {
      route: 'GET /v1/contracts',
      resource: 'contracts',
      action: 'search',
      cases: [listing('list contracts', ownContract, () => ({ path: '/v1/contracts' }), sameTenant)],
    },
    {
      route: 'GET /v1/contracts/:id',
      resource: 'contracts',
      action: 'read',
      cases: [{ name: 'read a contract', setup: ownContract, req: (t) => ({ path: `/v1/contracts/${t.contract}` }), allowed: sameTenant }],
    },
    {
      route: 'DELETE /v1/contracts/:id',
      resource: 'contracts',
      action: 'delete',
      cases: [
        {
          name: 'delete a contract',
          setup: ownContract,
          req: (t) => ({ method: 'DELETE', path: `/v1/contracts/${t.contract}` }),
          allowed: mayDeleteKnowledge,
          snapshot: contractSnapshot,
        },
      ],
    },
    // ── memories: one user's, reached by that user or named by the tenant's operator ─────────────────────
    {
      route: 'GET /v1/memories',
      resource: 'memories',
      action: 'read',
      cases: [
        listing('own memories (an operator names the owner)', ownMemory, (t, who) => ({ path: memoriesOf(t, who) }), mayReachMemories),
        {
          name: 'memories naming the owner',
          setup: ownMemory,
          req: (t) => ({ path: `/v1/memories?user_id=${encodeURIComponent(t.user!)}` }),
          allowed: (who) => who === 'owner' || operator(who),
          visibleTo: mayReachMemories,
        },
      ],
    },
    {
      route: 'DELETE /v1/memories',
      resource: 'memories',
      action: 'delete',
      cases: [
        {
          name: 'forget the owner’s memories',
          setup: ownMemory,
          req: (t) => ({ method: 'DELETE', path: `/v1/memories?user_id=${encodeURIComponent(t.user!)}` }),
          allowed: (who) => who === 'owner' || operator(who),
          snapshot: memorySnapshot,
          // another tenant's operator names a user of its own tenant: nothing of the owner's changes
          noEffect: (who) => who === 'otherTenant',
        },
      ],
    },
    // ── open paths: an explicit list ──────────────────────────────────────────────────────────────────
    { route: 'GET /health/live', resource: 'open', action: 'read', cases: [open('liveness', '/health/live')] },
    { route: 'GET /health/ready', resource: 'open', action: 'read', cases: [open('readiness', '/health/ready', status(200, 503))] },
    { route: 'GET /ok', resource: 'open', action: 'read', cases: [open('ok', '/ok')] },
    { route: 'GET /console', resource: 'open', action: 'read', cases: [open('console', '/console', status(200, 301, 302, 404))] },
    { route: 'GET /console/:file', resource: 'open', action: 'read', cases: [open('console file', '/console/app.js', status(200, 404))] },
    { route: 'GET /favicon.ico', resource: 'open', action: 'read', cases: [open('favicon', '/favicon.ico', status(200, 204, 404))] },
    {
      route: 'GET /metrics',
      resource: 'operations',
      action: 'read',
      cases: [fresh('metrics', () => ({ path: '/metrics' }), { allowed: serviceCredential, deniedOk: status(401) })],
    },
    ...[
      '/docs',
      '/docs/',
      '/docs/index.html',
      '/docs/swagger-ui-init.js',
      '/docs/docs/swagger-ui-init.js',
      '/docs/LICENSE',
      '/docs/openapi.json',
    ].map((path): Rule => ({
      route: `GET ${path}`,
      resource: 'docs',
      action: 'read',
      cases: [
        fresh(`docs ${path}`, () => ({ path }), {
          ok: (r) => r.status < 400 || r.status === 404,
          allowed: serviceCredential,
          deniedOk: status(401),
        }),
      ],
    })),
    {
      route: 'GET /docs-yaml',
      resource: 'docs',
      action: 'read',
      cases: [fresh('docs yaml', () => ({ path: '/docs-yaml' }), { allowed: serviceCredential, deniedOk: status(401) })],
    },
    // the server's capabilities: behind the credential like the API (LangGraph Platform leaves it open)
    {
      route: 'GET /info',
      resource: 'catalog',
      action: 'read',
      cases: [fresh('info', () => ({ path: '/info' }), { allowed: serviceCredential, deniedOk: status(401) })],
    },
    // ── assistants ──────────────────────────────────────────────────────────────────────────────────────
    {
      route: 'POST /assistants',
      resource: 'assistants',
      action: 'create',
      cases: [
        fresh('a new assistant', () => ({ method: 'POST', path: '/assistants', body: { graph_id: w.graph } })),
        onAssistant(
          'create naming the owner’s assistant, if_exists do_nothing',
          (t) => ({
            method: 'POST',
            path: '/assistants',
            body: { assistant_id: t.assistant, graph_id: w.graph, if_exists: 'do_nothing', metadata: { planted: true } },
          }),
          { upsert: true, noEffect: () => true },
        ),
        onAssistant(
          'create naming the owner’s assistant, if_exists raise',
          (t) => ({ method: 'POST', path: '/assistants', body: { assistant_id: t.assistant, graph_id: w.graph } }),
          { upsert: true, ok: status(409), noEffect: () => true },
        ),
      ],
    },
    {
      route: 'POST /assistants/search',
      resource: 'assistants',
      action: 'search',
      cases: [
        listing(
          'search assistants',
          ownAssistant,
          () => ({ method: 'POST', path: '/assistants/search', body: { limit: 1000 } }),
          ownsOther,
        ),
      ],
    },
    {
      route: 'POST /assistants/count',
      resource: 'assistants',
      action: 'search',
      cases: [fresh('count assistants', () => ({ method: 'POST', path: '/assistants/count', body: {} }))],
    },
    { route: 'GET /assistants/:id', resource: 'assistants', action: 'read', cases: [onAssistant('read', (t) => ({ path: A(t) }))] },
    {
      route: 'PATCH /assistants/:id',
      resource: 'assistants',
      action: 'update',
      cases: [onAssistant('update', (t) => ({ method: 'PATCH', path: A(t), body: { metadata: { planted: true } } }))],
    },
    {
      route: 'DELETE /assistants/:id',
      resource: 'assistants',
      action: 'delete',
      cases: [onAssistant('delete', (t) => ({ method: 'DELETE', path: A(t) }))],
    },
    {
      route: 'GET /assistants/:id/graph',
      resource: 'assistants',
      action: 'read',
      cases: [onAssistant('graph', (t) => ({ path: `${A(t)}/graph` }))],
    },
    {
      route: 'GET /assistants/:id/schemas',
      resource: 'assistants',
      action: 'read',
      cases: [onAssistant('schemas', (t) => ({ path: `${A(t)}/schemas` }))],
    },
    {
      route: 'GET /assistants/:id/subgraphs',
      resource: 'assistants',
      action: 'read',
      cases: [onAssistant('subgraphs', (t) => ({ path: `${A(t)}/subgraphs` }))],
    },
    {
      route: 'GET /assistants/:id/subgraphs/:namespace',
      resource: 'assistants',
      action: 'read',
      cases: [onAssistant('a subgraph', (t) => ({ path: `${A(t)}/subgraphs/x` }))],
    },
    {
      route: 'POST /assistants/:id/versions',
      resource: 'assistants',
      action: 'read',
      cases: [onAssistant('versions', (t) => ({ method: 'POST', path: `${A(t)}/versions`, body: {} }))],
    },
    {
      route: 'POST /assistants/:id/latest',
      resource: 'assistants',
      action: 'update',
      cases: [onAssistant('set the latest version', (t) => ({ method: 'POST', path: `${A(t)}/latest`, body: { version: 1 } }))],
    },
    // ── threads ─────────────────────────────────────────────────────────────────────────────────────────
    {
      route: 'POST /threads',
      resource: 'threads',
      action: 'create',
      cases: [
        fresh('a new thread', () => ({ method: 'POST', path: '/threads', body: { metadata: { graph_id: w.graph } } })),
        onThread(
          'do_nothing + supersteps on the owner’s thread (a planted message)',
          (t) => ({
            method: 'POST',
            path: '/threads',
            body: { thread_id: t.thread, if_exists: 'do_nothing', supersteps: superstep(w, 'PLANTED') },
          }),
          { upsert: true },
        ),
        onThread(
          'do_nothing on the owner’s thread',
          (t) => ({
            method: 'POST',
            path: '/threads',
            body: { thread_id: t.thread, if_exists: 'do_nothing', metadata: { planted: true } },
          }),
          { upsert: true, noEffect: () => true },
        ),
        onThread(
          'raise on the owner’s thread, with supersteps',
          (t) => ({ method: 'POST', path: '/threads', body: { thread_id: t.thread, supersteps: superstep(w, 'PLANTED') } }),
          { upsert: true, ok: status(409), noEffect: () => true },
        ),
      ],
    },
    {
      route: 'POST /threads/search',
      resource: 'threads',
      action: 'search',
      cases: [listing('search threads', ownThread, () => ({ method: 'POST', path: '/threads/search', body: { limit: 1000 } }), ownsThread)],
    },
    {
      route: 'POST /threads/count',
      resource: 'threads',
      action: 'search',
      cases: [fresh('count threads', () => ({ method: 'POST', path: '/threads/count', body: {} }))],
    },
    { route: 'GET /threads/:id', resource: 'threads', action: 'read', cases: [onThread('read', (t) => ({ path: T(t) }))] },
    {
      route: 'PATCH /threads/:id',
      resource: 'threads',
      action: 'update',
      cases: [
        onThread('update metadata (and try to take it)', (t, who) => ({
          method: 'PATCH',
          path: T(t),
          body: { metadata: { owner: who, planted: true } },
        })),
        onThread(
          'update metadata, answered minimally',
          (t, who) => ({
            method: 'PATCH',
            path: T(t),
            body: { metadata: { owner: who, planted: true } },
            headers: { Prefer: 'return=minimal' },
          }),
          { ok: status(204) },
        ),
      ],
    },
    {
      route: 'DELETE /threads/:id',
      resource: 'threads',
      action: 'delete',
      cases: [onThread('delete', (t) => ({ method: 'DELETE', path: T(t) }))],
    },
    {
      // each id is authorized as that thread's delete (`keep_latest`: its update); one the caller may not change is
      // skipped and not counted: a denied caller hears 200 with `pruned_count: 0`, and nothing of the owner's changes
      route: 'POST /threads/prune',
      resource: 'threads',
      action: 'delete',
      cases: [
        onThread('prune (delete)', (t) => ({ method: 'POST', path: '/threads/prune', body: { thread_ids: [t.thread] } }), {
          ok: prunedCount(1),
          deniedOk: prunedCount(0),
        }),
        onThread(
          'prune (keep_latest)',
          (t) => ({ method: 'POST', path: '/threads/prune', body: { thread_ids: [t.thread], strategy: 'keep_latest' } }),
          { ok: prunedCount(1), deniedOk: prunedCount(0) },
        ),
      ],
    },
    {
      route: 'POST /threads/:id/copy',
      resource: 'threads',
      action: 'copy',
      cases: [onThread('copy (a read of its state)', (t) => ({ method: 'POST', path: `${T(t)}/copy` }))],
    },
    {
      route: 'GET /threads/:id/state',
      resource: 'threads',
      action: 'read',
      cases: [onThread('state', (t) => ({ path: `${T(t)}/state` }))],
    },
    {
      route: 'POST /threads/:thread_id/commands',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread(
          'protocol state.get',
          (t) => ({ method: 'POST', path: `${T(t)}/commands`, body: { id: 1, method: 'state.get', params: {} } }),
          {
            ok: (r) => r.status === 200 && r.body?.type === 'success',
          },
        ),
        onThread(
          'protocol input.inject (create_run)',
          (t) => ({
            method: 'POST',
            path: `${T(t)}/commands`,
            body: { id: 2, method: 'input.inject', params: { namespace: [], message: { role: 'user', content: 'INJECTED' } } },
          }),
          { ok: (r) => r.status === 200 && r.body?.type === 'success' },
        ),
      ],
    },
    {
      route: 'POST /threads/:thread_id/stream/events',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread(
          'the thread’s protocol event stream (read for 500 ms)',
          (t) => ({ method: 'POST', path: `${T(t)}/stream/events`, body: { channels: ['values'] }, readMs: 500 }),
          { ok: status(200), upsert: true },
        ),
      ],
    },
    {
      route: 'POST /threads/:id/state',
      resource: 'threads',
      action: 'update',
      cases: [
        onThread('update state', (t) => ({
          method: 'POST',
          path: `${T(t)}/state`,
          body: { values: { messages: [{ role: 'ai', content: 'PLANTED' }] }, as_node: w.node },
        })),
      ],
    },
    {
      route: 'POST /threads/:id/state/checkpoint',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread('state at a checkpoint', (t) => ({
          method: 'POST',
          path: `${T(t)}/state/checkpoint`,
          body: { checkpoint: { checkpoint_id: t.checkpoint } },
        })),
      ],
    },
    {
      route: 'GET /threads/:id/state/:checkpointId',
      resource: 'threads',
      action: 'read',
      cases: [onThread('state at a checkpoint id', (t) => ({ path: `${T(t)}/state/${t.checkpoint}` }))],
    },
    {
      route: 'POST /threads/:id/history',
      resource: 'threads',
      action: 'read',
      cases: [onThread('history', (t) => ({ method: 'POST', path: `${T(t)}/history`, body: {} }))],
    },
    {
      route: 'GET /threads/:id/history',
      resource: 'threads',
      action: 'read',
      cases: [onThread('history (GET)', (t) => ({ path: `${T(t)}/history` }))],
    },
    // ── the thread event protocol's WebSocket and its browser ticket ──────────────────────────────────────
    // a stream may follow a thread that does not exist yet (its `run.start` creates it): another tenant's caller
    // names a new thread of its own tenant (`upsert`); the socket's own tests are test/security/protocol-socket-auth.spec.ts
    {
      route: 'GET /threads/:thread_id/stream/events',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread('the thread’s WebSocket, asked without an upgrade (426 once allowed)', (t) => ({ path: `${T(t)}/stream/events` }), {
          ok: status(426),
          upsert: true,
        }),
      ],
    },
    {
      route: 'POST /threads/:thread_id/stream/ticket',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread('a stream ticket for the owner’s thread', (t) => ({ method: 'POST', path: `${T(t)}/stream/ticket` }), {
          ok: (r) => r.status === 200 && typeof r.body?.ticket === 'string',
          upsert: true,
        }),
      ],
    },
    // ── runs ────────────────────────────────────────────────────────────────────────────────────────────
    ...(['', '/wait', '/stream'] as const).map((tail): Rule => ({
      route: `POST /threads/:thread_id/runs${tail}`,
      resource: 'threads',
      action: 'create_run',
      cases: [
        onThread(`run on the owner’s thread (${tail || 'background'})`, (t) => ({
          method: 'POST',
          path: `${T(t)}/runs${tail}`,
          body: { assistant_id: w.graph, input: input('PLANTED') },
        })),
      ],
    })),
    ...(['', '/wait', '/stream'] as const).map((tail): Rule => ({
      route: `POST /runs${tail}`,
      resource: 'threads',
      action: 'create_run',
      cases: [
        fresh(`a stateless run (${tail || 'background'})`, () => ({
          method: 'POST',
          path: `/runs${tail}`,
          body: { assistant_id: w.graph, input: input('hi') },
        })),
        // running an assistant reads it: another user's is missing
        onAssistant(
          `a stateless run of the owner’s assistant (${tail || 'background'})`,
          (t) => ({ method: 'POST', path: `/runs${tail}`, body: { assistant_id: t.assistant, input: input('hi') } }),
          { deniedOk: errorEvent },
        ),
      ],
    })),
    {
      route: 'POST /runs/batch',
      resource: 'threads',
      action: 'create_run',
      cases: [
        fresh('stateless runs in a batch', () => ({
          method: 'POST',
          path: '/runs/batch',
          body: [{ assistant_id: w.graph, input: input('hi') }],
        })),
        // a batch's runs are stateless: a `thread_id` in one is refused (422) or a run on that thread, by the thread rule
        onThread(
          'a batch naming the owner’s thread',
          (t) => ({ method: 'POST', path: '/runs/batch', body: [{ assistant_id: w.graph, thread_id: t.thread, input: input('PLANTED') }] }),
          { allowed: authenticated, ok: (r) => r.status < 300 || r.status === 422, noEffect: () => true },
        ),
      ],
    },
    {
      route: 'POST /runs/cancel',
      resource: 'threads',
      action: 'update',
      cases: [
        onThread(
          'cancel the owner’s runs by id',
          (t) => ({ method: 'POST', path: '/runs/cancel', body: { thread_id: t.thread, run_ids: [t.run] } }),
          {
            ok: (r) => r.status < 300 || r.status === 404 || r.status === 409,
          },
        ),
      ],
    },
    {
      route: 'GET /threads/:thread_id/runs',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread('list runs', (t) => ({ path: `${T(t)}/runs` })),
        onThread('list runs, some fields', (t) => ({ path: `${T(t)}/runs?select=run_id&select=kwargs` })),
      ],
    },
    {
      route: 'GET /threads/:thread_id/runs/:run_id',
      resource: 'threads',
      action: 'read',
      cases: [onThread('read a run', (t) => ({ path: R(t) }))],
    },
    {
      route: 'DELETE /threads/:thread_id/runs/:run_id',
      resource: 'threads',
      action: 'delete',
      cases: [onThread('delete a run', (t) => ({ method: 'DELETE', path: R(t) }))],
    },
    {
      route: 'GET /threads/:thread_id/runs/:run_id/join',
      resource: 'threads',
      action: 'read',
      cases: [onThread('join a run', (t) => ({ path: `${R(t)}/join` }))],
    },
    {
      route: 'GET /threads/:thread_id/runs/:run_id/stream',
      resource: 'threads',
      action: 'read',
      cases: [onThread('stream a run', (t) => ({ path: `${R(t)}/stream` }), { deniedOk: errorEvent })],
    },
    {
      route: 'GET /runs/:run_id/stream',
      resource: 'threads',
      action: 'read',
      cases: [
        onThread('stream a run by its id alone', (t) => ({ path: `/runs/${t.run}/stream` }), { ok: status(200), deniedOk: noEvents }),
        onThread(
          'stream a run by its id alone, cancelling on disconnect',
          (t) => ({ path: `/runs/${t.run}/stream?cancel_on_disconnect=1` }),
          {
            ok: status(200),
            deniedOk: noEvents,
          },
        ),
      ],
    },
    {
      route: 'GET /threads/:thread_id/stream',
      resource: 'threads',
      action: 'read',
      cases: [onThread('stream the thread', (t) => ({ path: `${T(t)}/stream` }), { ok: status(200) })],
    },
    {
      route: 'POST /threads/:thread_id/runs/:run_id/cancel',
      resource: 'threads',
      action: 'update',
      cases: [
        onThread('cancel a run', (t) => ({ method: 'POST', path: `${R(t)}/cancel` }), { ok: (r) => r.status < 300 || r.status === 409 }),
      ],
    },
    // ── crons ───────────────────────────────────────────────────────────────────────────────────────────
    {
      route: 'POST /runs/crons',
      resource: 'crons',
      action: 'create',
      cases: [
        fresh('a stateless cron', () => ({
          method: 'POST',
          path: '/runs/crons',
          body: { assistant_id: w.graph, schedule: NEVER, input: input('hi') },
        })),
      ],
    },
    {
      route: 'POST /threads/:threadId/runs/crons',
      resource: 'threads',
      action: 'create_run',
      cases: [
        onThread(
          'a cron on the owner’s thread',
          (t) => ({
            method: 'POST',
            path: `${T(t)}/runs/crons`,
            body: { assistant_id: w.graph, schedule: NEVER, input: input('PLANTED') },
          }),
          { snapshot: async (t, world) => [await cronCount(t, world), ...(await threadSnapshot(t, world))] },
        ),
      ],
    },
    {
      route: 'POST /runs/crons/search',
      resource: 'crons',
      action: 'search',
      cases: [listing('search crons', ownCron, () => ({ method: 'POST', path: '/runs/crons/search', body: { limit: 1000 } }), ownsOther)],
    },
    {
      route: 'POST /runs/crons/count',
      resource: 'crons',
      action: 'search',
      cases: [fresh('count crons', () => ({ method: 'POST', path: '/runs/crons/count', body: {} }))],
    },
    {
      route: 'PATCH /runs/crons/:cronId',
      resource: 'crons',
      action: 'update',
      cases: [onCron('update a cron', (t) => ({ method: 'PATCH', path: `/runs/crons/${t.cron}`, body: { enabled: false } }))],
    },
    {
      route: 'DELETE /runs/crons/:cronId',
      resource: 'crons',
      action: 'delete',
      cases: [onCron('delete a cron', (t) => ({ method: 'DELETE', path: `/runs/crons/${t.cron}` }))],
    },
    // ── store ───────────────────────────────────────────────────────────────────────────────────────────
    {
      route: 'PUT /store/items',
      resource: 'store',
      action: 'put',
      cases: [
        fresh('a new item', () => ({
          method: 'PUT',
          path: '/store/items',
          body: { namespace: ['matrix', newMark()], key: 'k', value: { a: 1 } },
        })),
        onItem(
          'overwrite the owner’s item (upsert)',
          (t) => ({ method: 'PUT', path: '/store/items', body: { namespace: t.ns, key: 'k', value: { planted: true } } }),
          { upsert: true },
        ),
      ],
    },
    {
      route: 'GET /store/items',
      resource: 'store',
      action: 'get',
      // another tenant's namespace of the same name is its own, and empty
      cases: [onItem('read an item', (t) => ({ path: `/store/items?${item(t)}` }), { upsert: true })],
    },
    {
      route: 'DELETE /store/items',
      resource: 'store',
      action: 'delete',
      cases: [
        onItem('delete an item', (t) => ({ method: 'DELETE', path: '/store/items', body: { namespace: t.ns, key: 'k' } }), {
          ok: status(204, 200),
          upsert: true,
        }),
      ],
    },
    {
      route: 'POST /store/items/search',
      resource: 'store',
      action: 'search',
      cases: [
        listing(
          'search items',
          ownItem,
          (t) => ({ method: 'POST', path: '/store/items/search', body: { namespace_prefix: t.ns, limit: 100 } }),
          ownsOther,
        ),
      ],
    },
    {
      route: 'POST /store/namespaces',
      resource: 'store',
      action: 'list_namespaces',
      cases: [
        listing(
          'list namespaces',
          ownItem,
          (t) => ({ method: 'POST', path: '/store/namespaces', body: { prefix: t.ns, limit: 100 } }),
          ownsOther,
        ),
      ],
    },
    // ── /mcp, /ui, the http app, /internal ──────────────────────────────────────────────────────────────
    {
      route: 'POST /mcp',
      resource: 'assistants',
      action: 'search, read (a tool call runs one)',
      cases: [
        listing(
          'MCP tools/list (assistants as tools)',
          ownAssistant,
          () => ({
            method: 'POST',
            path: '/mcp',
            body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
            headers: { accept: 'application/json, text/event-stream' },
          }),
          ownsOther,
        ),
        // tools/call finds the tool among the assistants the caller may see: another user's is an unknown tool
        {
          name: 'MCP tools/call of the owner’s assistant',
          setup: ownTool,
          req: (t) => ({
            method: 'POST',
            path: '/mcp',
            body: {
              jsonrpc: '2.0',
              id: 2,
              method: 'tools/call',
              params: { name: t.listed, arguments: { messages: [{ role: 'user', content: 'hi' }] } },
            },
            headers: { accept: 'application/json, text/event-stream' },
          }),
          allowed: ownsOther,
          ok: (r) => r.status === 200 && /"isError":false/.test(r.text),
          deniedOk: (r) => r.status === 200 && /unknown tool/.test(r.text) && /"isError":true/.test(r.text),
          snapshot: assistantSnapshot,
        },
      ],
    },
    {
      route: 'ALL /mcp',
      resource: 'assistants',
      action: 'search',
      cases: [fresh('MCP, another method', () => ({ method: 'DELETE', path: '/mcp' }), { ok: (r) => r.status < 500 && r.status !== 401 })],
    },
    // ── A2A: each assistant as an agent (its card, JSON-RPC at /a2a/{id}); tasks are runs of the caller's threads ──
    ...(['/.well-known/agent-card.json?assistant_id=', '/a2a/'] as const).map((head): Rule => ({
      route: head.startsWith('/a2a') ? 'GET /a2a/:assistantId/.well-known/agent-card.json' : 'GET /.well-known/agent-card.json',
      resource: 'assistants',
      action: 'read',
      cases: [
        fresh(`A2A card of a graph (${head})`, () => ({ path: cardPath(head, w.graph) })),
        onAssistant(`A2A card of the owner’s assistant (${head})`, (t) => ({ path: cardPath(head, t.assistant!) })),
      ],
    })),
    {
      route: 'POST /a2a/:assistantId',
      resource: 'threads',
      action: 'read, create_run, update (as the runs routes)',
      cases: [
        onThread('A2A GetTask of the owner’s run', (t) => a2a(w.graph, 'tasks/get', { id: t.run }), {
          ok: (r) => r.status === 200 && r.body?.result?.kind === 'task',
          deniedOk: taskNotFound,
        }),
        onThread('A2A CancelTask of the owner’s (finished) run', (t) => a2a(w.graph, 'tasks/cancel', { id: t.run }), {
          ok: (r) => r.status === 200 && r.body?.error?.code === -32002,
          deniedOk: taskNotFound,
        }),
        // another tenant's caller starts a context of that id in its own tenant (ids are per tenant)
        onThread(
          'A2A message into the owner’s context',
          (t) =>
            a2a(w.graph, 'message/send', {
              message: {
                kind: 'message',
                messageId: newMark(),
                role: 'user',
                contextId: t.thread,
                parts: [{ kind: 'text', text: 'PLANTED' }],
              },
            }),
          { ok: (r) => r.status === 200 && r.body?.result?.kind === 'task', deniedOk: taskNotFound, upsert: true },
        ),
        listing(
          'A2A ListTasks of the assistant',
          ownThread,
          () => ({ ...a2a(w.graph, 'ListTasks', {}), headers: { 'A2A-Version': '1.0' } }),
          ownsThread,
        ),
      ],
    },
    {
      route: 'POST /ui/:graph',
      resource: 'ui',
      action: 'read',
      cases: [
        fresh('a UI component', () => ({ method: 'POST', path: `/ui/chat`, body: { name: 'card' } }), {
          ok: (r) => r.status < 300 || r.status === 404,
        }),
      ],
    },
    {
      route: 'ALL /{*path}',
      resource: 'http app',
      action: 'any',
      cases: [fresh('a custom route of the http app', () => ({ path: '/hello/ada' }), { ok: (r) => r.status < 500 && r.status !== 401 })],
    },
    {
      route: 'POST /internal/truncate',
      resource: 'tenant',
      action: 'truncate',
      cases: [
        {
          name: 'truncate the tenant',
          setup: ownItem,
          // an operator truncates nothing (the flags empty); anyone else asks for everything
          req: (_t, who) => ({
            method: 'POST',
            path: '/internal/truncate',
            body: operator(who) ? {} : { runs: true, threads: true, assistants: true, store: true, checkpoint: true },
          }),
          allowed: (who) => operator(who),
          snapshot: itemSnapshot,
        },
      ],
    },
  ];
}
