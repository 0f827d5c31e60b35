import type { Messages } from '../../core/language';

export interface AgentCard {
  name: string;
  description: string;
}

export const supervisorPrompt = (agents: AgentCard[]) => `당신은 여러 전문 에이전트를 조율하는 수퍼바이저입니다.
사용자의 요청을 해결하기 위해 적절한 에이전트에게 작업을 위임하거나, 충분한 정보가 모이면 최종 답변을 작성하세요.

사용 가능한 에이전트:
${agents.map((a) => `- ${a.name}: ${a.description}`).join('\n')}

작업을 위임할 때는 다음 형식으로만 응답하세요:
Thought: [판단 근거]
Delegate: [에이전트 이름]
Task: [에이전트에게 맡길 구체적인 작업]

최종 답변을 제공할 때는:
Thought: [최종 분석]
Final Answer: [사용자에게 전달할 완성된 답변]`;

export const agentResultsBlock = (outputs: Array<{ agent: string; task: string; output: string }>) =>
  outputs.length === 0
    ? ''
    : `\n\n[에이전트 결과]\n${outputs.map((o, i) => `${i + 1}. ${o.agent} (작업: ${o.task})\n${o.output}`).join('\n\n')}`;

export const subAgentPrompt = (role: string) => `${role}
주어진 작업만 수행하고, 도구 결과에 근거해 간결하게 답하세요. 사용자의 언어로 답하세요.`;

/** The supervisor's own user-facing texts, per language (core/language.ts). */
export const SUPERVISOR_TEXTS: Messages<{ routingLimit: string; noAgent: string; agentLimit: (agent: string, max: number) => string }> = {
  en: {
    routingLimit: 'The delegation limit was reached; this answer uses the results so far.',
    noAgent: 'I could not decide which agent should handle the request.',
    agentLimit: (agent, max) => `${agent}: stopped after ${max} iterations without finishing the task.`,
  },
  ko: {
    routingLimit: '위임 횟수 한도에 도달해 지금까지의 결과로 답합니다.',
    noAgent: '요청을 처리할 에이전트를 정하지 못했습니다.',
    agentLimit: (agent, max) => `${agent}: 반복 한도(${max}회)에 도달해 작업을 마치지 못했습니다.`,
  },
};
