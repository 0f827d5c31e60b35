/**
 * The typed client against a running service: a turn, a queued job waited for, a queued job followed as
 * events, a streamed turn, then the session read back.
 *
 *   AGENT_URL=http://localhost:3000 AGENT_API_KEY=… node -r ./test/support/swc-register.js examples/client/main.ts
 *
 * In your own project import from 'agent-orchestrator/client' instead of the source path.
 */
import { AgentClientError, createAgentClient } from '../../src/client';

/** One line of what the example did, as JSON (the e2e test reads these). */
function report(step: string, value: unknown): void {
  console.log(JSON.stringify({ step, value }));
}

export async function main(baseUrl: string, apiKey?: string): Promise<void> {
  const client = createAgentClient({ baseUrl, apiKey });
  report(
    'agents',
    (await client.agents.list()).map((a) => a.name),
  );

  // one turn, answered in the request
  const turn = await client.chat({ message: 'What is 12 times 7?' });
  report('chat', { response: turn.response, tools_used: turn.tools_used, session_id: turn.session_id });
  const session = turn.session_id;

  // the same session, queued: wait for the job to end
  const queued = await client.jobs.create({ message: 'And 2 to the 10th?', session_id: session });
  const job = await client.jobs.wait(queued.job_id, { timeoutMs: 30_000, intervalMs: 200 });
  report('job', { status: job.status, response: job.result?.response });

  // another queued turn, followed as Server-Sent Events until its result
  const followed = await client.jobs.create({ message: 'Thanks. What is 3 + 4?', session_id: session });
  for await (const e of client.jobs.events(followed.job_id)) {
    if (e.event === 'status') report('job-event', e.data.status);
    else report('job-result', e.data.response);
  }

  // a turn streamed as it happens: tokens, then the result
  let tokens = '';
  for await (const e of client.chat.stream({ message: 'Say goodbye.', session_id: session })) {
    if (e.event === 'token') tokens += e.data.content;
    if (e.event === 'result') report('stream', { tokens, response: e.data.response });
  }

  // read back by session id: the latest result and the conversation
  report('result', (await client.sessions.result(session)).response);
  const trace = await client.sessions.trace(session, turn.run_id);
  report('trace', trace.usage);
  const conversation = await client.sessions.get(session);
  report('session', { messages: conversation.messages.length, runs: conversation.runs.map((r) => r.status) });

  // errors are typed
  try {
    await client.sessions.get('no-such-session');
  } catch (err) {
    if (!(err instanceof AgentClientError)) throw err;
    report('error', { status: err.status, code: err.code });
  }
}

if (require.main === module) {
  main(process.env.AGENT_URL ?? 'http://localhost:3000', process.env.AGENT_API_KEY).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
