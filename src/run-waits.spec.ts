import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { RunWaits } from '../scripts/count-run-waits';

/** scripts/count-run-waits.ts over a source tree: what it prints with `--json`. */
function runWaits(root?: string): RunWaits {
  const args = ['-r', './test/support/swc-register.js', 'scripts/count-run-waits.ts', ...(root ? [root] : []), '--json'];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as RunWaits;
}

/**
 * Waiting for a run or a session's lease is driven by events (the run event bus), never by polling: the script
 * finds every loop or parked-run timer that waits for one, and only the documented slow safety nets remain.
 */
describe('waits for a run or a lease (scripts/count-run-waits.ts)', () => {
  it('src/ has no polling loop, and exactly the documented slow safety nets', () => {
    const waits = runWaits();
    expect(waits.polls).toEqual([]);
    expect(waits.safetyNets.map((place) => place.replace(/:\d+ /, ' '))).toEqual([
      'src/orchestrator/turn-lease.service.ts take',
      'src/runs/bull-run-queue.ts process',
      'src/runs/inline-run-queue.ts park',
      'src/runs/run-ends.service.ts awaitEnd',
    ]);
  });

  describe('on a tree of its own', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'run-waits-'));
      mkdirSync(join(root, 'src'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));
    const file = (name: string, text: string) => writeFileSync(join(root, 'src', name), text);

    it('sees a lease loop, a status loop, a loop through a sleeping method and a parked-run timer', () => {
      file(
        'lease.ts',
        `class L { async take() { for (;;) { if (await this.sessions.tryLease()) return; await new Promise((r) => setTimeout(r, 50)); } } }`,
      );
      file('status.ts', `async function wait(id) { while ((await store.get(id)).status !== 'completed') await sleep(100); }`);
      file(
        'method.ts',
        `class M { private pauseABit() { return new Promise((r) => setTimeout(r, 20)); } async hand(id) { while (this.queue.isLocal(id)) await this.pauseABit(); } }`,
      );
      file('queue.ts', `class Q { park(id, ms) { const t = setTimeout(() => this.pump(id), ms); this.parked.set(id, t); } }`);
      const waits = runWaits(root);
      expect(waits.polls.map((p) => p.replace(/:\d+ /, ' ')).sort()).toEqual([
        'src/lease.ts take',
        'src/method.ts hand',
        'src/queue.ts park',
        'src/status.ts wait',
      ]);
      expect(waits.safetyNets).toEqual([]);
    });

    it('lists a wait woken by an event, with a jittered slow re-check, as a safety net; ignores other timers', () => {
      file('net.ts', `class N { park(id) { const t = setTimeout(() => this.pump(id), safetyNetMs(5000)); this.parked.set(id, t); } }`);
      file('other.ts', `async function retry(f) { for (let i = 0; i < 3; i++) { try { return await f(); } catch { await sleep(100); } } }`);
      expect(runWaits(root)).toEqual({ polls: [], safetyNets: [expect.stringMatching(/^src\/net\.ts:1 park$/)] });
    });
  });
});
