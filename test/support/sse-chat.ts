/** One turn over `POST /v1/chat/stream`: the `result` event's ChatResult and the `token` events joined. */
export async function chatOverSse<T>(base: string, body: unknown): Promise<{ status: number; body: T; tokens: string }> {
  const res = await fetch(`${base}/v1/chat/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) return { status: res.status, body: JSON.parse(text) as T, tokens: '' };
  const events = text
    .split('\n\n')
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
    .filter((e): e is { event: string; data: string } => e.event !== undefined && e.data !== undefined);
  const result = events.find((e) => e.event === 'result');
  if (!result) throw new Error(`the stream ended without a result event: ${text.slice(0, 300)}`);
  const tokens = events
    .filter((e) => e.event === 'token')
    .map((e) => (JSON.parse(e.data) as { content: string }).content)
    .join('');
  return { status: res.status, body: JSON.parse(result.data) as T, tokens };
}
