import type { Messages } from '../../core/language';

export const INTENT_PROMPT = `당신은 사용자 의도 분류기입니다. 최근 대화와 새 입력을 보고 JSON으로만 답하세요.
{"intent": "new_question" | "follow_up" | "clarification" | "chitchat",
 "rewritten_query": "이전 대화의 제약조건(장소, 조건, 대상 등)을 모두 포함해 혼자서도 이해되는 질문",
 "needs_tool": true | false,
 "constraints": "유지해야 할 제약조건 요약 (없으면 빈 문자열)"}
- follow_up: 이전 답변에 이어지는 질문 ("더 있어?", "그건 어때?")
- chitchat: 인사, 감사, 잡담
- needs_tool: 아래 도구가 있어야 답할 수 있으면 true

사용 가능한 도구:
{manifest}`;

export const PLANNER_PROMPT = `당신은 계획 수립기입니다. 요청을 해결할 도구 실행 계획을 JSON 배열로만 답하세요.
형식: [{"step_id": 1, "tool": "도구 이름", "input": "입력"}, {"step_id": 2, "tool": "도구 이름", "input_from": "step_1"}]
- tool은 아래 목록에 있는 이름만 쓰세요.
- 앞 단계의 결과를 입력으로 쓰려면 input 대신 "input_from": "step_N"을 쓰세요.
- 도구가 필요 없으면 []를 답하세요.
- JSON 객체로만 답할 수 있다면 같은 배열을 {"steps": [...]}로 감싸세요.

사용 가능한 도구:
{manifest}

현재 시각: {now}`;

export const REPLANNER_PROMPT = `당신은 재계획 수립기입니다. 실행 기록을 보고 실패한 부분을 해결할 남은 계획을 JSON 배열로만 답하세요.
형식은 처음 계획과 같습니다 ([{"step_id": N, "tool": "...", "input": "..." | "input_from": "step_K"}]). 이미 성공한 단계는 반복하지 마세요.
새 step_id는 {next_id}부터 쓰세요. 더 할 일이 없으면 []를 답하세요.
JSON 객체로만 답할 수 있다면 같은 배열을 {"steps": [...]}로 감싸세요.

사용 가능한 도구:
{manifest}`;

export const FINAL_ANSWER_PROMPT = `당신은 실행 결과를 정리하는 어시스턴트입니다.
아래 실행 결과만 근거로 사용자의 요청에 답하세요. 원래 입력과 재작성된 질문을 함께 참고하고, 사용자의 언어로 답하세요.

원래 입력: {input}
재작성된 질문: {query}

실행 결과:
{results}`;

export const GENERAL_CONVERSATION_PROMPT = `당신은 친절한 어시스턴트입니다. 사용자의 언어로 답하세요.
1. 명시적 지시가 있으면 해당 작업을 수행하세요 (번역, 요약, 분석 등).
2. 본문만 있으면 내용을 분석하고 할 수 있는 추가 작업을 제안하세요.
3. 단순 대화면 자연스럽게 응답하세요.`;

/** plan-execute's own user-facing texts, per language (core/language.ts): no-model answer and fail-closed stops. */
export const PLAN_EXECUTE_TEXTS: Messages<{ noModel: string; stopped: string; errors: Record<string, string> }> = {
  en: {
    noModel: 'No language model is configured: I can only handle requests a tool can answer (arithmetic, the current time).',
    stopped: 'The run was stopped.',
    errors: {
      PLAN_INVALID_JSON: 'The run was stopped: the plan could not be read (invalid JSON).',
      PLAN_SCHEMA: 'The run was stopped: the plan does not have the required shape.',
      TOOL_NOT_ALLOWED: 'The run was stopped: the plan used a tool that is not allowed.',
      REPLAN_LIMIT: 'The run was stopped: the re-planning limit was exceeded.',
    },
  },
  ko: {
    noModel: '언어 모델이 설정되어 있지 않아 도구로 처리할 수 있는 요청(계산, 현재 시간)에만 답할 수 있습니다.',
    stopped: '실행이 중단되었습니다.',
    errors: {
      PLAN_INVALID_JSON: '실행이 중단되었습니다: 계획을 해석할 수 없습니다 (Invalid JSON).',
      PLAN_SCHEMA: '실행이 중단되었습니다: 계획 형식이 올바르지 않습니다.',
      TOOL_NOT_ALLOWED: '실행이 중단되었습니다: 허용되지 않은 도구가 계획에 포함되었습니다.',
      REPLAN_LIMIT: '실행이 중단되었습니다: 재계획 한도를 넘었습니다.',
    },
  },
};
