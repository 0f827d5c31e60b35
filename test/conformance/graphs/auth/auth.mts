import { Auth, HTTPException } from '@langchain/langgraph-sdk/auth';

/** Bearer tokens of the conformance tests: each names one user. */
const USERS: Record<string, { identity: string; permissions: string[] }> = {
  'user-a': { identity: 'alice', permissions: ['threads:write'] },
  'user-b': { identity: 'bob', permissions: [] },
};

function authenticate(request: Request) {
  const token = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
  const user = token ? USERS[token] : undefined;
  if (!user) throw new HTTPException(401, { message: 'who are you?', headers: { 'WWW-Authenticate': 'Bearer realm="conformance"' } });
  return user;
}

type Who = { user: { identity: string }; permissions: string[] };
type Args = { user: { identity: string }; permissions: string[]; value: { metadata?: Record<string, unknown> | null } };

/** a thread (and a run's new thread) belongs to who created it */
function own({ user, value }: Args) {
  value.metadata ??= {};
  value.metadata.owner = user.identity;
  return { owner: user.identity };
}

/** deleting a thread needs `threads:write`: without it, the handler refuses (false → 403) */
function deleteThread({ user, permissions }: Who) {
  return permissions.includes('threads:write') ? { owner: user.identity } : false;
}

/** every other action sees the caller's own resources only */
function ownOnly({ user }: Who) {
  return { owner: user.identity };
}

/** the store: the caller's namespace only */
function store({ user }: Who) {
  return { namespace: { $contains: user.identity } };
}

/** the graphs' assistants are everyone's */
function anyone() {
  return undefined;
}

export const auth = new Auth()
  .authenticate(authenticate)
  .on('threads:create', own)
  .on('threads:create_run', own)
  .on('threads:delete', deleteThread)
  .on('store', store)
  .on('assistants', anyone)
  .on('*', ownOnly);
