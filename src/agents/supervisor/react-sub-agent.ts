import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { localize, turnLanguage } from '../../core/language';
import { ModelUnavailableError } from '../../llm/model-errors';
import type { Source, ToolCallRecord } from '../agent-definition';
import { buildReactGraph } from '../react/graph';
import type { LlmNodeDeps } from '../react/nodes/llm.node';
import { turnInput } from '../react/state';
import { toolResultsOfTurn } from '../shared/outage';
import type { ToolRunOptions } from '../shared/tool-executor';
import { subAgentPrompt, SUPERVISOR_TEXTS } from './prompts';

export interface SubAgentSpec {
  name: string;
  description: string;
  /** role line of its system prompt */
  role: string;
  tools: StructuredToolInterface[];
  maxIterations?: number;
}

/**
 * createReactSubAgent: a sub-agent is the react agent's graph (seed 003: `call_model` ⇄ `execute_tool`) with the
 * sub-agent's role as its system prompt and tools, at most `maxIterations` model calls, no checkpointer of its
 * own. Works with native and prompt tool calling; without a model, rules pick a tool.
 */
export function createReactSubAgent(
  spec: SubAgentSpec,
  deps: { model: () => BaseChatModel | null; toolCalling: LlmNodeDeps['toolCalling']; toolRun?: ToolRunOptions },
) {
  const max = spec.maxIterations ?? 10;
  const graph = buildReactGraph({ ...deps, tools: spec.tools, systemPrompt: subAgentPrompt(spec.role) }, undefined, spec.name);

  return {
    ...spec,
    /**
     * Runs the task with the conversation so far (seed 003 passes the user's messages): returns the agent's
     * answer, its tool calls, the sources its tools cited and whether it hit its iteration limit. A model outage
     * is thrown (the supervisor's turn ends MODEL_UNAVAILABLE with what its agents found so far).
     */
    async run(
      task: string,
      conversation: BaseMessage[],
      config: LangGraphRunnableConfig,
    ): Promise<{ output: string; records: ToolCallRecord[]; sources: Source[]; hitLimit: boolean }> {
      const messages = taskMessages(task, conversation);
      const request = String(messages[messages.length - 1].content);
      const out = await graph.invoke(
        { ...turnInput({ message: request }, { maxIterations: max }), messages },
        { ...config, recursionLimit: max * 2 + 5 },
      );
      const records = out.tool_calls.map((r) => ({ ...r, agent: spec.name }));
      if (out.error?.code === 'MODEL_UNAVAILABLE') {
        throw new SubAgentOutage(out.error.message, { records, sources: out.sources, found: toolResultsOfTurn(out.messages) });
      }
      const hitLimit = out.error?.code === 'ITERATION_LIMIT';
      return {
        output: hitLimit ? localize(SUPERVISOR_TEXTS, turnLanguage(config, request)).agentLimit(spec.name, max) : out.response,
        records,
        sources: out.sources,
        hitLimit,
      };
    },
  };
}

export type ReactSubAgent = ReturnType<typeof createReactSubAgent>;

/** The model failed inside a sub-agent: what it had done so far travels with the error to the outage ending. */
export class SubAgentOutage extends ModelUnavailableError {
  constructor(
    message: string,
    readonly partial: { records: ToolCallRecord[]; sources: Source[]; found: string },
  ) {
    super(message);
  }
}

const HISTORY_MESSAGES = 6;

/**
 * The sub-agent's input: the recent conversation (user turns and final answers, no tool traffic), then the
 * user's current message with the supervisor's task for this agent.
 */
export function taskMessages(task: string, conversation: BaseMessage[]): BaseMessage[] {
  const turns = conversation.filter((m) => ['human', 'ai'].includes(m.getType()) && typeof m.content === 'string' && m.content.trim());
  const current = turns.at(-1)?.getType() === 'human' ? turns.at(-1) : undefined;
  const history = (current ? turns.slice(0, -1) : turns).slice(-HISTORY_MESSAGES);
  const request = current ? String(current.content) : '';
  const text = request && request.trim() !== task.trim() ? `${request}\n\n[작업] ${task}` : task;
  return [...history, new HumanMessage(text)];
}
