import createClient, { type Client } from 'openapi-fetch';

import { AgentClientError } from './errors';
import { retryingFetch, type RetryOptions, sleep } from './retry';
import type { components, paths } from './schema';
import { parseSse, type SseEvent } from './sse';

type Schemas = components['schemas'];
export type ChatRequest = Schemas['ChatRequestDto'];
export type ChatResult = Schemas['ChatResultDto'];
export type Job = Schemas['JobDto'];
export type JobAccepted = Schemas['JobAcceptedDto'];
export type JobStatus = Job['status'];
export type Session = Schemas['SessionDto'];
export type Contract = Schemas['ContractDto'];
export type ContractSummary = Schemas['ContractSummaryDto'];
export type CreateContract = Schemas['CreateContractDto'];
export type Document = Schemas['DocumentDto'];
export type CreateDocument = Schemas['CreateDocumentDto'];
export type AgentInfo = Schemas['AgentInfoDto'];
export type ToolInfo = Schemas['ToolInfoDto'];

type TraceContent = paths['/v1/sessions/{id}/runs/{runId}/trace']['get']['responses'][200]['content'];
/** `GET /v1/sessions/{id}/runs/{runId}/trace`: typed once the server documents it, a plain record until then. */
export type RunTrace = TraceContent extends { 'application/json': infer T } ? T : Record<string, unknown>;

/** `POST /v1/chat/stream`: `run` (ids), `progress` per node, `token` as the model writes, then `result`. */
export type ChatStreamEvent =
  | SseEvent<'run', { run_id: string; session_id: string; agent: string }>
  | SseEvent<'progress', Record<string, unknown>>
  | SseEvent<'token', { node: string; content: string }>
  | SseEvent<'result', ChatResult>;

/** `GET /v1/jobs/{id}/events`: `status` on every change, then `result`. */
export type JobEvent =
  SseEvent<'status', { job_id: string; status: JobStatus; progress: Record<string, unknown> | null }> | SseEvent<'result', ChatResult>;

export interface AgentClientOptions extends RetryOptions {
  /** Where the service listens, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` (needed when the service has API_KEYS). */
  apiKey?: string;
  /** Another fetch (a proxy agent, a test double); defaults to the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface SubmitOptions {
  /** The same key on a retried request answers the first run; by default each call gets a fresh one. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Give up (AgentClientError, code `TIMEOUT`) after this long (default 120 s). */
  timeoutMs?: number;
  /** Time between polls (default 500 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

const FINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** openapi-fetch's `{ data, error, response }` → the data, or the error thrown. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw AgentClientError.from(response, error);
  return data as T;
}

/**
 * A typed client for REST v1: `api` is the raw openapi-fetch client (every path, typed from the OpenAPI
 * document); the rest are helpers that return the data or throw AgentClientError. 429 and 503 are retried
 * (`retry-after` honoured); submissions carry an `Idempotency-Key`, so a retried one never runs twice.
 */
export function createAgentClient(options: AgentClientOptions) {
  const fetchFn = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  // an unreachable service is an AgentClientError too (status 0); an abort stays the caller's own error
  const reach = async (request: Request): Promise<Response> => {
    try {
      return await fetchFn(request);
    } catch (err) {
      if (request.signal.aborted) throw err;
      const cause = (err as { cause?: { message?: string } })?.cause?.message ?? (err as Error)?.message;
      throw new AgentClientError(0, 'NETWORK_ERROR', `${request.method} ${request.url} failed: ${cause}`);
    }
  };
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined,
    fetch: retryingFetch(reach, options),
  });

  const submitHeaders = (o: SubmitOptions) => ({ 'idempotency-key': o.idempotencyKey ?? crypto.randomUUID() });

  async function* sse<E>(call: Promise<{ error?: unknown; response: Response }>): AsyncGenerator<E> {
    const { error, response } = await call;
    if (!response.ok || !response.body) throw AgentClientError.from(response, error);
    yield* parseSse(response.body) as AsyncGenerator<E>;
  }

  const chat = Object.assign(
    /** One turn, answered in the request. */
    (body: ChatRequest, o: SubmitOptions = {}): Promise<ChatResult> =>
      unwrap(api.POST('/v1/chat', { body, params: { header: submitHeaders(o) }, signal: o.signal })),
    {
      /** The same turn as it happens; the last event is `result`. */
      stream: (body: ChatRequest, o: { signal?: AbortSignal } = {}): AsyncGenerator<ChatStreamEvent> =>
        sse(api.POST('/v1/chat/stream', { body, parseAs: 'stream', signal: o.signal })),
    },
  );

  const jobs = {
    /** Queue a turn: 202 with the job id. */
    create: (body: ChatRequest, o: SubmitOptions = {}): Promise<JobAccepted> =>
      unwrap(api.POST('/v1/jobs', { body, params: { header: submitHeaders(o) }, signal: o.signal })),
    get: (id: string): Promise<Job> => unwrap(api.GET('/v1/jobs/{id}', { params: { path: { id } } })),
    cancel: (id: string): Promise<Job> => unwrap(api.POST('/v1/jobs/{id}/cancel', { params: { path: { id } } })),
    approve: (id: string): Promise<Job> => unwrap(api.POST('/v1/jobs/{id}/approve', { params: { path: { id } } })),
    reject: (id: string): Promise<Job> => unwrap(api.POST('/v1/jobs/{id}/reject', { params: { path: { id } } })),
    /** Polls until the job has ended (completed, failed or cancelled) and returns it. */
    async wait(id: string, o: WaitOptions = {}): Promise<Job> {
      const deadline = Date.now() + (o.timeoutMs ?? 120_000);
      for (;;) {
        const job = await jobs.get(id);
        if (FINAL.includes(job.status)) return job;
        const left = deadline - Date.now();
        if (left <= 0) throw new AgentClientError(0, 'TIMEOUT', `job ${id} is still ${job.status} after ${o.timeoutMs ?? 120_000} ms`);
        await sleep(Math.min(o.intervalMs ?? 500, left), o.signal);
      }
    },
    /**
     * The job's events until its `result`. A stream that breaks off before it is reopened with `Last-Event-ID`
     * (up to `reconnects` times, default 3), so nothing is missed or repeated; `lastEventId` resumes an earlier one.
     */
    async *events(id: string, o: { lastEventId?: string; signal?: AbortSignal; reconnects?: number } = {}): AsyncGenerator<JobEvent> {
      let lastEventId = o.lastEventId;
      for (let attempt = 0; ; attempt++) {
        const stream = sse<JobEvent>(
          api.GET('/v1/jobs/{id}/events', {
            params: { path: { id }, header: lastEventId ? { 'last-event-id': lastEventId } : {} },
            parseAs: 'stream',
            signal: o.signal,
          }),
        );
        try {
          for await (const e of stream) {
            if (e.id) lastEventId = e.id;
            yield e;
            if (e.event === 'result') return;
          }
        } catch (err) {
          // a refused request (404 …) or an abort is final; a connection lost mid-stream is not
          if (err instanceof AgentClientError || o.signal?.aborted || attempt >= (o.reconnects ?? 3)) throw err;
          continue;
        }
        if (attempt >= (o.reconnects ?? 3))
          throw new AgentClientError(0, 'STREAM_ENDED', `the events of job ${id} ended before its result`);
      }
    },
  };

  const sessions = {
    get: (id: string): Promise<Session> => unwrap(api.GET('/v1/sessions/{id}', { params: { path: { id } } })),
    /** The latest finished run's ChatResult. */
    result: (id: string): Promise<ChatResult> => unwrap(api.GET('/v1/sessions/{id}/result', { params: { path: { id } } })),
    trace: (id: string, runId: string): Promise<RunTrace> =>
      unwrap<RunTrace>(api.GET('/v1/sessions/{id}/runs/{runId}/trace', { params: { path: { id, runId } } })),
    delete: (id: string): Promise<void> => unwrap(api.DELETE('/v1/sessions/{id}', { params: { path: { id } } })),
  };

  const documents = {
    create: (body: CreateDocument): Promise<Document> => unwrap(api.POST('/v1/documents', { body })),
    list: async (): Promise<Document[]> => (await unwrap(api.GET('/v1/documents'))).documents,
    delete: (id: string): Promise<void> => unwrap(api.DELETE('/v1/documents/{id}', { params: { path: { id } } })),
  };

  const contracts = {
    /** From text (`content`); multipart uploads go through `api.POST('/v1/contracts', …)` with a FormData body. */
    create: (body: CreateContract): Promise<Contract> => unwrap(api.POST('/v1/contracts', { body })),
    list: async (kind?: 'user' | 'standard'): Promise<ContractSummary[]> =>
      (await unwrap(api.GET('/v1/contracts', { params: { query: kind ? { kind } : {} } }))).contracts,
    get: (id: string): Promise<Contract> => unwrap(api.GET('/v1/contracts/{id}', { params: { path: { id } } })),
    delete: (id: string): Promise<void> => unwrap(api.DELETE('/v1/contracts/{id}', { params: { path: { id } } })),
  };

  return {
    api,
    chat,
    jobs,
    sessions,
    documents,
    contracts,
    agents: { list: async (): Promise<AgentInfo[]> => (await unwrap(api.GET('/v1/agents'))).agents },
    tools: { list: async (): Promise<ToolInfo[]> => (await unwrap(api.GET('/v1/tools'))).tools },
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;
