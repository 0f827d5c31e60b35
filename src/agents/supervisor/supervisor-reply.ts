/** What the supervisor said: a delegation, a final answer, or neither (the reply is then the answer). */
export type SupervisorReply = { kind: 'delegate'; agent: string; task: string } | { kind: 'final'; answer: string };

const DELEGATE = /Delegate\s*[:：]\s*[`*]*([A-Za-z_][\w-]*)/i;
const TASK = /Task\s*[:：]\s*([\s\S]+?)(?=\n\s*(?:Thought|Delegate|Final Answer)\s*[:：]|$)/i;
const FINAL = /(?:Final\s*Answer|최종\s*답변)\s*[:：]\s*([\s\S]+)/i;

export function parseSupervisorReply(text: string, fallbackTask: string): SupervisorReply {
  const delegate = DELEGATE.exec(text);
  const final = FINAL.exec(text);
  if (delegate && (!final || delegate.index < final.index)) {
    return { kind: 'delegate', agent: delegate[1], task: TASK.exec(text)?.[1]?.trim() || fallbackTask };
  }
  if (final) return { kind: 'final', answer: final[1].trim() };
  return { kind: 'final', answer: text.replace(/^\s*Thought\s*[:：].*$/im, '').trim() || text.trim() };
}
