import { emptyCheckpoint, type PendingWrite, TASKS, WRITES_IDX_MAP } from '@langchain/langgraph-checkpoint';
import type { Pool } from 'pg';

import { RowDumpingPostgresSaver } from './row-dumping-postgres-saver';

/** A pool that records what the official saver sends (one client, every query answered with no rows). */
function recordingPool() {
  const sent: { sql: string; params?: unknown[] }[] = [];
  const client = {
    query: async (sql: string, params?: unknown[]) => {
      sent.push({ sql: sql.replace(/\s+/g, ' ').trim(), params });
      return { rows: [], rowCount: 0 };
    },
    release: () => undefined,
  };
  return { pool: { connect: async () => client, query: client.query } as Pool, sent };
}

/** The serializers, callable from the test as the checkpoint writer calls them. */
class Rows extends RowDumpingPostgresSaver {
  blobs = this.dumpBlobs.bind(this);
  checkpointColumn = this.dumpCheckpoint.bind(this);
  metadata = this.dumpMetadata.bind(this);
  writes = this.dumpWrites.bind(this);
}

describe('RowDumpingPostgresSaver (canary: what the checkpoint writer copies of PostgresSaver)', () => {
  const checkpoint = { ...emptyCheckpoint(), id: 'cp-2', channel_values: { messages: ['hi'], plan: { step: 1 } } };
  const versions = { messages: 3, plan: 2, gone: 1 }; // `gone` has no value: an "empty" blob row
  const metadata = { source: 'loop' as const, step: 1, parents: {}, run_note: 'x\u0000y' };
  const config = { configurable: { thread_id: 't-1', checkpoint_ns: '', checkpoint_id: 'cp-1' } };

  it('put writes exactly the dumped rows: a blob row per new version, then the checkpoint row with its parent, in one transaction', async () => {
    const { pool, sent } = recordingPool();
    const saver = new Rows(pool, undefined, { schema: 'canary' });
    await saver.put(config, checkpoint, metadata, versions);

    const blobs = await saver.blobs('t-1', '', checkpoint.channel_values, versions);
    expect(blobs).toHaveLength(3);
    expect(blobs.find((b) => b[2] === 'gone')?.slice(4)).toEqual(['empty', undefined]);
    const row = ['t-1', '', 'cp-2', 'cp-1', saver.checkpointColumn(checkpoint), await saver.metadata(metadata)];
    expect(row[4]).not.toHaveProperty('channel_values');
    expect(sent.map((s) => s.params ?? s.sql)).toEqual(['BEGIN', ...blobs, row, 'COMMIT']);
    // the tables, columns and conflict rules the writer's single statement repeats
    expect(sent[1].sql).toBe(
      'INSERT INTO "canary".checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING',
    );
    expect(sent[4].sql).toBe(
      'INSERT INTO "canary".checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata;',
    );
  });

  it('putWrites writes exactly the dumped rows; special channels overwrite, the others keep the first write', async () => {
    const { pool, sent } = recordingPool();
    const saver = new Rows(pool, undefined, { schema: 'canary' });
    const ordinary: PendingWrite[] = [
      ['messages', 'a'],
      [TASKS, { node: 'n' }],
    ];
    const special: PendingWrite[] = [['__error__', { message: 'boom' }]];
    expect('__error__' in WRITES_IDX_MAP).toBe(true);
    await saver.putWrites(config, ordinary, 'task-1');
    await saver.putWrites(config, special, 'task-1');

    const ordinaryRows = await saver.writes('t-1', '', 'cp-1', 'task-1', ordinary);
    const specialRows = await saver.writes('t-1', '', 'cp-1', 'task-1', special);
    expect(ordinaryRows.map((r) => r[4])).toEqual([0, 1]); // idx: the write's position
    expect(specialRows[0][4]).toBe(WRITES_IDX_MAP.__error__); // idx: the channel's fixed slot
    const statements = sent.filter((s) => s.params);
    expect(statements.map((s) => s.params)).toEqual([...ordinaryRows, ...specialRows]);
    const insert =
      'INSERT INTO "canary".checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)';
    expect(statements[0].sql).toBe(`${insert} DO NOTHING`);
    expect(statements[2].sql).toBe(`${insert} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob;`);
  });
});
