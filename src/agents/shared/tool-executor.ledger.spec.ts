import { AIMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { type RunContext, withRunContext } from '../../core/run-context';
import { type RecordedToolCall, type ToolLedger } from '../../core/tool-ledger';
import { ToolGuard } from '../../tools/tool-guard';
import { runToolCalls } from './tool-executor';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

/** An in-memory ledger that keeps what the executor records. */
class MemoryLedger implements ToolLedger {
  readonly recorded = new Map<string, RecordedToolCall & { name: string }>();
  lookup(id: string): Promise<RecordedToolCall | null> {
    return Promise.resolve(this.recorded.get(id) ?? null);
  }
  record(id: string, name: string, _args: unknown, result: RecordedToolCall): Promise<void> {
    this.recorded.set(id, { ...result, name });
    return Promise.resolve();
  }
}

const counting = (name: string, counter: Map<string, number>) =>
  tool(
    async ({ q }: { q: string }) => {
      counter.set(name, (counter.get(name) ?? 0) + 1);
      return `${name}(${q})`;
    },
    { name, description: name, schema: z.object({ q: z.string() }) },
  );

describe('runToolCalls and the tool ledger', () => {
  it('records a call with an outside effect, not a read-only one; a resumed run answers the recorded call from the ledger', async () => {
    const runs = new Map<string, number>();
    const tools = [counting('calculator', runs), counting('get_weather', runs)];
    const ledger = new MemoryLedger();
    const ai = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c1', name: 'calculator', args: { q: '1+1' }, type: 'tool_call' },
        { id: 'w1', name: 'get_weather', args: { q: 'Seoul' }, type: 'tool_call' },
      ],
    });
    const config = { configurable: runCtx({ ledger, guard: new ToolGuard('weather and 1+1') }) };

    const first = await runToolCalls(ai, tools, config);
    expect(first.messages.map((m) => m.content)).toEqual(['calculator(1+1)', 'get_weather(Seoul)']);
    expect([...ledger.recorded.keys()]).toEqual(['w1']);

    // the same step again (a resumed run): the weather call answers from the ledger, the calculator runs again
    const again = await runToolCalls(ai, tools, config);
    expect(again.messages.map((m) => m.content)).toEqual(['calculator(1+1)', 'get_weather(Seoul)']);
    expect(runs.get('get_weather')).toBe(1);
    expect(runs.get('calculator')).toBe(2);
  });
});
