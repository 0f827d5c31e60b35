import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every write of ours to LangGraph's checkpoint tables is in checkpoint-tables.ts (the official saver's own
 * statements are the library's). This scans `src/` for a statement that writes one of them anywhere else.
 */
const SRC = path.resolve(__dirname, '..');
const HOME = path.join('database', 'checkpoint-tables.ts');
const WRITE = /(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(\s+TABLE)?)\s+\S*checkpoint(s|_writes|_blobs)\b/i;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sourcesUnder(full); // migrations are history
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('checkpoint tables: one writer', () => {
  it('no file of src/ but checkpoint-tables.ts writes checkpoints, checkpoint_blobs or checkpoint_writes', () => {
    const writers = sourcesUnder(SRC)
      .filter((file) => WRITE.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    expect(writers).toEqual([HOME]);
  });

  it('the scan recognises the forms those writes take', () => {
    for (const sql of [
      'INSERT INTO ${s}.checkpoints (thread_id) SELECT',
      'DELETE FROM "langgraph".checkpoint_writes WHERE',
      "INSERT INTO ${table('checkpoint_blobs')} (thread_id)",
      'UPDATE langgraph.checkpoints SET',
    ])
      expect(WRITE.test(sql)).toBe(true);
    expect(WRITE.test('SELECT 1 FROM "langgraph".checkpoints c WHERE')).toBe(false);
  });
});
