/** ScopeValidator's prompt (seed 000: "계약서 관련 질문인지 판단하세요", answer `{is_valid, reason}`). */
export const SCOPE_SYSTEM_PROMPT = '당신은 질문 분류 전문가입니다. JSON 형식으로만 응답하세요.';

export const scopeUserPrompt = (domain: string, message: string) => `다음 질문이 이 서비스의 범위(${domain})에 속하는지 판단하세요.
인사, 감사 표현, 서비스 사용법 질문은 범위에 속합니다.

질문: ${message}

응답 형식 (JSON):
{"is_valid": true/false, "reason": "판단 근거"}`;
