import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import type { AssistantWire } from '../assistants/assistants.repository';

/** The input of an assistant whose graph publishes no object schema: a chat turn, as LangGraph messages. */
export const MESSAGES_INPUT: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    messages: {
      type: 'array',
      description: 'the conversation, e.g. [{ "role": "user", "content": "…" }]',
      items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } }, required: ['role', 'content'] },
    },
  },
  required: ['messages'],
};

/** An MCP tool name from an assistant's name: letters, digits, `_` and `-` (at most 64), as MCP clients expect. */
export function toolNameOf(assistant: AssistantWire): string {
  const name = (assistant.name || assistant.graph_id).replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return name || assistant.assistant_id;
}

/** Each assistant as a tool (the first assistant of a name wins a clash); `inputSchema` from its graph when it has one. */
export function assistantTools(
  assistants: AssistantWire[],
  inputSchemaOf: (a: AssistantWire) => Tool['inputSchema'],
): Array<{ tool: Tool; assistant: AssistantWire }> {
  const seen = new Set<string>();
  const out: Array<{ tool: Tool; assistant: AssistantWire }> = [];
  for (const assistant of assistants) {
    const name = toolNameOf(assistant);
    if (seen.has(name)) continue;
    seen.add(name);
    const description = assistant.description ?? `Runs the "${assistant.graph_id}" agent (assistant ${assistant.assistant_id}).`;
    out.push({ tool: { name, description, inputSchema: inputSchemaOf(assistant) }, assistant });
  }
  return out;
}

/** What a finished run answers the MCP client: the last message's text, else the output values as JSON. */
export function runOutputText(values: unknown): { text: string; isError: boolean } {
  const v = (values ?? {}) as { messages?: Array<{ content?: unknown }>; __error__?: { message?: string } };
  if (v.__error__) return { text: v.__error__.message ?? 'the run failed', isError: true };
  const last = Array.isArray(v.messages) ? v.messages.at(-1) : undefined;
  if (last && typeof last.content === 'string') return { text: last.content, isError: false };
  return { text: JSON.stringify(values ?? null), isError: false };
}
