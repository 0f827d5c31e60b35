import { FakeListChatModel } from '@langchain/core/utils/testing';
import { InMemoryStore, type LangGraphRunnableConfig } from '@langchain/langgraph';

import { listFacts } from '../../../memory/long-term/fact-store';
import type { AssistantStateType } from '../state';
import { createLongTermMemoryNode } from './long-term-memory.node';

const as = (user: string | undefined, store: InMemoryStore, session = 's1'): LangGraphRunnableConfig => ({
  store,
  metadata: { session_id: session },
  configurable: user ? { langgraph_auth_user_id: user } : {},
});
const turn = (message: string) => ({ user_message: message }) as AssistantStateType;

describe('long_term_memory node', () => {
  it('saves a stated fact under its user, recalls it in a later session, and never for another user', async () => {
    const store = new InMemoryStore();
    const node = createLongTermMemoryNode({ model: () => null });
    const first = await node(turn('내 생일은 3월 15일이야'), as('alice@example.com', store, 'session-1'));
    expect(first).toMatchObject({ remembered: ['birthday'], remembered_by: 'rules' });
    const facts = await listFacts(store, 'alice@example.com');
    expect(facts).toEqual([
      expect.objectContaining({ text: '내 생일은 3월 15일이야', kind: 'birthday', lang: 'ko', source_session: 'session-1' }),
    ]);

    const later = await node(turn('선물은 언제 준비하면 좋을까?'), as('alice@example.com', store, 'session-2'));
    expect(later.recalled).toEqual(['내 생일은 3월 15일이야']);
    expect(later.memories).toContain('[이전 대화에서 기억한 사용자 정보');
    const other = await node(turn('선물은 언제 준비하면 좋을까?'), as('bob', store, 'session-3'));
    expect(other).toMatchObject({ memories: '', recalled: [] });
  });

  it('replaces a restated single-valued fact instead of adding one', async () => {
    const store = new InMemoryStore();
    const node = createLongTermMemoryNode({ model: () => null });
    await node(turn('My birthday is March 15'), as('u1', store));
    await node(turn('My birthday is April 2'), as('u1', store));
    expect((await listFacts(store, 'u1')).map((f) => f.text)).toEqual(['My birthday is April 2']);
  });

  it('asks the model once, only for a self-description the rules cannot classify', async () => {
    const store = new InMemoryStore();
    const model = new FakeListChatModel({ responses: ['Sure! {"facts": [{"kind": "name", "text": "The user is called Jin"}]}'] });
    const calls = jest.spyOn(model, 'invoke');
    const node = createLongTermMemoryNode({ model: () => model });
    await node(turn('What is 2 + 2?'), as('u2', store));
    await node(turn("I'm allergic to peanuts"), as('u2', store));
    expect(calls).not.toHaveBeenCalled();
    const out = await node(turn("I'm Jin"), as('u2', store));
    expect(calls).toHaveBeenCalledTimes(1);
    expect(out).toMatchObject({ remembered: ['name'], remembered_by: 'model' });
    expect((await listFacts(store, 'u2')).map((f) => f.kind).sort()).toEqual(['allergy', 'name']);
  });

  it('is off without a user (an API key) or without a store', async () => {
    const store = new InMemoryStore();
    const node = createLongTermMemoryNode({ model: () => null });
    expect(await node(turn("I'm allergic to peanuts"), as(undefined, store))).toEqual({});
    expect(await node(turn("I'm allergic to peanuts"), { configurable: { langgraph_auth_user_id: 'u3' } })).toEqual({});
    expect(await store.listNamespaces()).toEqual([]);
  });
});
