import { storageConfigOf } from './storage-config';

describe('storageConfigOf (langgraph.json store and checkpointer)', () => {
  it('reads store.index, store.ttl and checkpointer.ttl with the documented defaults', () => {
    const c = storageConfigOf(
      {
        store: { index: { embed: 'openai:text-embedding-3-small', dims: 1536 }, ttl: { default_ttl: 0.5 } },
        checkpointer: { ttl: { default_ttl: 43200 } },
      },
      '/app',
    );
    expect(c.index).toEqual({ embed: 'openai:text-embedding-3-small', dims: 1536, fields: ['$'] });
    expect(c.storeTtl).toEqual({ defaultTtl: 0.5, refreshOnRead: true, sweepIntervalMinutes: 60 });
    expect(c.checkpointerTtl).toEqual({ strategy: 'delete', defaultTtl: 43200, sweepIntervalMinutes: 60, sweepLimit: 1000 });
  });

  it('configures nothing when the keys are absent', () => {
    expect(storageConfigOf({}, '/app')).toEqual({ dir: '/app', index: undefined, storeTtl: undefined, checkpointerTtl: undefined });
  });

  it('refuses a bad value, naming the key', () => {
    expect(() => storageConfigOf({ store: { index: { embed: 'openai:x', dims: -1 } } }, '/app', '/app/langgraph.json')).toThrow(
      /LANGGRAPH_CONFIG \/app\/langgraph\.json: store\.index\.dims/,
    );
    expect(() => storageConfigOf({ checkpointer: { ttl: { strategy: 'archive' } } }, '/app')).toThrow(/checkpointer\.ttl\.strategy/);
    expect(() => storageConfigOf({ store: { indx: {} } }, '/app')).toThrow(/store: Unrecognized key/);
  });
});
