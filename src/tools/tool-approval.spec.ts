import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';

import type { RunnableGraph } from '../core/run-types';
import type { RunEntity } from '../database/entities';
import {
  approvalRequestOf,
  createRunToolGuard,
  interruptsOf,
  pendingCallView,
  resumeAfterDecision,
  toPendingApproval,
} from './tool-approval';

const graphWith = (messages: unknown[]): RunnableGraph => ({
  stream: () => Promise.reject(new Error('not used')),
  getState: () => Promise.resolve({ values: { messages }, next: [] }),
});
const request = { type: 'tool_approval' as const, tool: 'python_repl', args: { code: '1' }, tool_call_id: 'c1' };

describe('tool approval helpers', () => {
  it('finds the approval request in a stream chunk; any other interrupt is an error', () => {
    expect(interruptsOf({ agent: {} })).toBeUndefined();
    const interrupts = interruptsOf({ __interrupt__: [{ id: 'i', value: request }] })!;
    expect(approvalRequestOf(interrupts)).toEqual(request);
    expect(() => approvalRequestOf([{ id: 'i', value: { question: '?' } }])).toThrow(/not a tool approval/);
  });

  it("resumes only after a decision (the calls before the pause are already in the run's persisted usage)", () => {
    const before = [{ node: 'agent', ms: 5, prompt_tokens: 10, completion_tokens: 2 }];
    const pending = toPendingApproval(request, before);
    expect(pendingCallView(pending)).toEqual({
      tool: 'python_repl',
      args: { code: '1' },
      tool_call_id: 'c1',
      requested_at: expect.any(String),
    });
    expect(resumeAfterDecision({ pendingApproval: pending } as RunEntity)).toBeUndefined();
    const decided = { ...pending, decision: { approved: false, at: 'now' } };
    const cmd = resumeAfterDecision({ pendingApproval: decided } as RunEntity);
    expect(cmd).toBeInstanceOf(Command);
    expect(cmd!.resume).toEqual({ approved: false });
  });

  it('starts a run tainted when the thread already holds tool output, or when it resumes mid-turn', async () => {
    const opts = { message: 'hi', approvalTools: new Set<string>(), resumed: false };
    expect((await createRunToolGuard(graphWith([new HumanMessage('a'), new AIMessage('b')]), {}, opts)).tainted).toBe(false);
    const withTool = [
      new AIMessage({ content: '', tool_calls: [{ id: 't', name: 'x', args: {} }] }),
      new ToolMessage({ content: 'r', tool_call_id: 't' }),
    ];
    const guard = await createRunToolGuard(graphWith(withTool), {}, opts);
    expect(guard.taintSources).toEqual(['tool output of earlier turns']);
    expect((await createRunToolGuard(graphWith([]), {}, { ...opts, resumed: true })).tainted).toBe(true);
  });
});
