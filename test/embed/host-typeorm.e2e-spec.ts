import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, Repository } from 'typeorm';

import { RunEntity, SessionEntity } from '../../src/database/entities';
import { AgentOrchestrator, AgentOrchestratorModule, ORCHESTRATOR_DATA_SOURCE } from '../../src/index';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/** The host's own table, in the same Postgres database as the service's. */
@Entity('host_notes')
class HostNote {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'text' })
  text!: string;
}

/** A host service on the host's default data source, as enterprise Nest apps have them. */
@Injectable()
class HostNotes {
  constructor(@InjectRepository(HostNote) private readonly notes: Repository<HostNote>) {}

  async add(text: string): Promise<HostNote> {
    return this.notes.save(this.notes.create({ text }));
  }

  all(): Promise<HostNote[]> {
    return this.notes.find({ order: { id: 'ASC' } });
  }
}

function countingGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode('count', (s) => ({ messages: [new AIMessage(`turn ${s.messages.filter((m) => HumanMessage.isInstance(m)).length}`)] }))
    .addEdge('__start__', 'count');
}

let hostDatabaseUrl = '';

/** The host's own `TypeOrmModule.forRoot` (the default data source) beside the service, which reads its settings. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({ type: 'postgres', url: hostDatabaseUrl, entities: [HostNote], synchronize: true }),
    }),
    TypeOrmModule.forFeature([HostNote]),
    AgentOrchestratorModule.forRootAsync({
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => ({
        database: { dataSource },
        builtInAgents: [],
        agents: [{ name: 'counter', description: 'Counts turns', graph: countingGraph }],
        defaultAgent: 'counter',
        settings: { LOG_LEVEL: 'error' },
      }),
    }),
  ],
  providers: [HostNotes],
})
class HostModule {}

describe('AgentOrchestratorModule in a host app with its own default TypeORM data source', () => {
  let db: TestDatabase;
  let app: TestingModule;

  beforeAll(async () => {
    db = await createTestDatabase('embed_host_typeorm');
    hostDatabaseUrl = db.url;
    app = await Test.createTestingModule({ imports: [HostModule] }).compile();
    await app.init();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it("keeps the host's default data source and the service's named one apart", () => {
    const host = app.get(DataSource);
    const ours = app.get<DataSource>(getDataSourceToken(ORCHESTRATOR_DATA_SOURCE));
    expect(ours).not.toBe(host);
    expect(host.hasMetadata(HostNote)).toBe(true);
    expect(host.hasMetadata(SessionEntity)).toBe(false);
    expect(ours.hasMetadata(RunEntity)).toBe(true);
    expect(ours.hasMetadata(HostNote)).toBe(false);
  });

  it("answers turns through the service and the host's repository in the same database", async () => {
    const notes = app.get(HostNotes);
    await notes.add('first');
    const orchestrator = app.get(AgentOrchestrator);
    const first = await orchestrator.chat({ message: 'one' });
    expect(first).toMatchObject({ agent: 'counter', response: 'turn 1', error: null });
    const second = await orchestrator.chat({ message: 'two', sessionId: first.session_id });
    expect(second).toMatchObject({ response: 'turn 2' });
    await notes.add('second');
    expect((await notes.all()).map((n) => n.text)).toEqual(['first', 'second']);
    // both sets of tables live in the host's database: the host's data source sees the service's rows
    const [{ count }] = await app
      .get(DataSource)
      .query('SELECT count(*)::int AS count FROM runs WHERE session_id = $1', [first.session_id]);
    expect(count).toBe(2);
  });
});
