import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Annotation, END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

import { bindToolsForMode, type ToolCallingMode } from '../../llm/tool-binding';
import type { Source, ToolCallRecord } from '../agent-definition';
import { ruleToolCall } from '../react/rules';
import { runToolCalls, type ToolRunOptions } from '../shared/tool-executor';
import { subAgentPrompt } from './prompts';

export interface SubAgentSpec {
  name: string;
  description: string;
  /** role line of its system prompt */
  role: string;
  tools: StructuredToolInterface[];
  maxIterations?: number;
}

const SubAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  iteration: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
  records: Annotation<ToolCallRecord[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  sources: Annotation<Source[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  hit_limit: Annotation<boolean>({ reducer: (_a, b) => b, default: () => false }),
});

/**
 * createReactSubAgent: one small ReAct graph per sub-agent (seed 003: `call_model` ⇄ `execute_tool`, at most
 * `maxIterations` model calls). Works with native and prompt tool calling; without a model, rules pick a tool.
 */
export function createReactSubAgent(
  spec: SubAgentSpec,
  deps: { model: () => BaseChatModel | null; toolCalling: () => ToolCallingMode; toolRun?: ToolRunOptions },
) {
  const max = spec.maxIterations ?? 10;
  const graph = new StateGraph(SubAgentState)
    .addNode('call_model', async (state: typeof SubAgentState.State, config: LangGraphRunnableConfig) => {
      const iteration = state.iteration + 1;
      if (iteration > max) {
        return {
          iteration,
          hit_limit: true,
          messages: [new AIMessage(`${spec.name}: 반복 한도(${max}회)에 도달해 작업을 마치지 못했습니다.`)],
        };
      }
      const model = deps.model();
      if (!model) return { iteration, messages: [withoutModel(state.messages)] };
      const bound = bindToolsForMode(model, spec.tools, deps.toolCalling());
      const reply = await bound.invoke([new SystemMessage(subAgentPrompt(spec.role)), ...state.messages], config);
      return { iteration, messages: [reply] };
    })
    .addNode('execute_tool', async (state: typeof SubAgentState.State, config: LangGraphRunnableConfig) => {
      const { messages, records, sources } = await runToolCalls(
        state.messages[state.messages.length - 1] as AIMessage,
        spec.tools,
        config,
        deps.toolRun,
      );
      return { messages, records: records.map((r) => ({ ...r, agent: spec.name })), sources };
    })
    .addEdge(START, 'call_model')
    .addConditionalEdges(
      'call_model',
      (s) => (!s.hit_limit && (s.messages[s.messages.length - 1] as AIMessage).tool_calls?.length ? 'execute_tool' : END),
      ['execute_tool', END],
    )
    .addEdge('execute_tool', 'call_model')
    .compile({ name: spec.name });

  return {
    ...spec,
    /**
     * Runs the task with the conversation so far (seed 003 passes the user's messages): returns the agent's
     * answer, its tool calls, the sources its tools cited and whether it hit its iteration limit.
     */
    async run(
      task: string,
      conversation: BaseMessage[],
      config: LangGraphRunnableConfig,
    ): Promise<{ output: string; records: ToolCallRecord[]; sources: Source[]; hitLimit: boolean }> {
      const out = await graph.invoke({ messages: taskMessages(task, conversation) }, { ...config, recursionLimit: max * 2 + 5 });
      const last = out.messages[out.messages.length - 1];
      return {
        output: typeof last.content === 'string' ? last.content : JSON.stringify(last.content),
        records: out.records,
        sources: out.sources,
        hitLimit: out.hit_limit,
      };
    },
  };
}

export type ReactSubAgent = ReturnType<typeof createReactSubAgent>;

function withoutModel(messages: BaseMessage[]): AIMessage {
  const last = messages[messages.length - 1];
  if (last.getType() === 'tool') return new AIMessage(String(last.content));
  const call = ruleToolCall(String(last.content));
  return call ? new AIMessage({ content: '', tool_calls: [call] }) : new AIMessage('언어 모델이 없어 이 작업을 처리할 수 없습니다.');
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
