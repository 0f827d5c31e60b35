/** The intent classifier's rule fast path. */
const CHITCHAT =
  /^\s*(안녕|반가|고마|감사|수고|잘\s*지내|좋은\s*(아침|하루)|hi\b|hello\b|hey\b|thanks?\b|thank you|good (morning|afternoon|evening)|how are you)[\s!.?~]*([가-힣!.?~\s]*|[\s,]*(there|everyone|all|so much|a lot|very much)?[\s!.?~]*)$/i;
const REQUEST =
  /[?？]|(알려|해\s*줘|해줘|주세요|할까|뭐야|뭔가|어때|있어|찾아|검색|요약|번역|계산|분석|설명|please|what|how|why|who|when|where|which|can you|could you|would you|tell me|find|search|summari[sz]e|translate|calculate|explain|analy[sz]e)/i;

export function isChitchat(input: string): boolean {
  return input.length < 60 && CHITCHAT.test(input);
}

/** A pasted article or code with no question or instruction. */
export function isContentOnly(input: string): boolean {
  return input.length >= 300 && !REQUEST.test(input.slice(0, 200)) && !REQUEST.test(input.slice(-200));
}
