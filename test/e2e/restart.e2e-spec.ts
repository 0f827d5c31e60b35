import { createTestDatabase, type TestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, startApp } from '../support/test-app';

/** A conversation continues after the service restarts: LangGraph state lives in Postgres (PostgresSaver). */
describe('restart keeps the conversation', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('restart');
  });

  afterAll(async () => {
    await model.stop();
    await db?.drop();
  });

  it('answers the second turn with the first turn in the model context after a restart', async () => {
    const env = { DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', LLM_CACHE: 'false' };
    let svc = await startApp(env);
    model.enqueue({ content: '반가워요, 철수님.' });
    const first = await http(svc.url, 'POST', '/v1/chat', { message: '내 이름은 철수야' });
    expect(first.status).toBe(200);
    await svc.close();

    svc = await startApp(env);
    try {
      model.enqueue({ content: '철수라고 하셨어요.' });
      const second = await http(svc.url, 'POST', '/v1/chat', { message: '내 이름이 뭐라고 했지?', session_id: first.body.session_id });
      expect(second.status).toBe(200);
      expect(second.body.response).toBe('철수라고 하셨어요.');
      const seen = model.requests[1].messages.map((m: any) => `${m.role}:${m.content}`);
      expect(seen).toEqual(expect.arrayContaining(['user:내 이름은 철수야', 'assistant:반가워요, 철수님.', 'user:내 이름이 뭐라고 했지?']));
    } finally {
      await svc.close();
    }
  });
});
