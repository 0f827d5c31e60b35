import { createHash } from 'node:crypto';

import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import type { Source, ToolCallRecord } from '../agent-definition';
import { runToolCalls, type ToolRunOptions } from '../shared/tool-executor';
import { taskMessages } from './react-sub-agent';

/** What the supervisor's graph needs of a sub-agent: a name, a description for routing, and a run. */
export interface SubAgent {
  readonly name: string;
  readonly description: string;
  run(
    task: string,
    conversation: BaseMessage[],
    config: LangGraphRunnableConfig,
  ): Promise<{ output: string; records: ToolCallRecord[]; sources: Source[] }>;
}

export interface A2aSubAgentSpec {
  name: string;
  /** the remote agent's tool (`a2a__<name>`); a live list: empty until the agent's card was fetched */
  tools: StructuredToolInterface[];
  toolName: string;
  /** the card's description once fetched (read on every routing) */
  describe: () => string | undefined;
}

/**
 * A remote A2A agent as one of the supervisor's sub-agents: delegating to it sends the supervisor's task (with
 * the user's request, as `taskMessages` builds it) straight to the remote agent — no model loop of ours — as one
 * call of its tool through the shared tool executor (`runToolCalls`): the run's budget, the tool ledger, the
 * guard (consent, taint, answer as untrusted data), the trace and the metrics, the SSRF guard, time and size limits.
 */
export function createA2aSubAgent(spec: A2aSubAgentSpec, deps: { toolRun?: ToolRunOptions }): SubAgent {
  return {
    name: spec.name,
    get description() {
      return spec.describe() ?? `Remote A2A agent "${spec.name}" (not reachable yet: its card could not be fetched)`;
    },
    async run(task, conversation, config) {
      const messages = taskMessages(task, conversation);
      const args = { message: String(messages[messages.length - 1].content) };
      if (!spec.tools.length) {
        const output = `Error: remote agent "${spec.name}" is not reachable (its agent card could not be fetched); the task was not sent.`;
        return { output, records: [{ name: spec.toolName, args, status: 'error', agent: spec.name }], sources: [] };
      }
      // the same id when a resumed run repeats this delegation: the tool ledger answers instead of a second call
      const id = `call_${spec.toolName}_${createHash('sha256').update(`${conversation.length}\0${args.message}`).digest('hex').slice(0, 16)}`;
      const ai = new AIMessage({ content: '', tool_calls: [{ id, name: spec.toolName, args, type: 'tool_call' }] });
      const { messages: answers, records } = await runToolCalls(ai, spec.tools, config, deps.toolRun);
      return { output: String(answers[0].content), records: records.map((r) => ({ ...r, agent: spec.name })), sources: [] };
    },
  };
}
