export const SUMMARY_SYSTEM_PROMPT =
  '당신은 대화 요약 전문가입니다. 이후 대화에 필요한 사실(이름, 날짜, 숫자, 선호, 결정 사항)을 빠짐없이 짧게 요약하세요.';

export const summaryUserPrompt = (transcript: string, previous: string) => `다음 대화를 요약하세요. 요약만 출력하세요.
${previous ? `\n이전 요약에 있는 사실 중 여전히 중요한 것(이름, 날짜, 숫자, 결정)은 새 요약에도 남기세요.\n[이전 요약]\n${previous}\n` : ''}
[대화]
${transcript}`;
