import type { AgentCard } from '@a2a-js/sdk';

import { checkUrl, type SafeFetchOptions } from '../general/network-guard';
import { ToolError } from '../general/tool-error';
import { neutraliseMarkers } from '../untrusted';

/** A remote agent's tool name (`a2a__<name>`): the `__` keeps it apart from this service's own tools. */
export const a2aToolName = (name: string) => `a2a__${name}`;

const MAX_DESCRIPTION = 1200;
const MAX_SKILLS = 8;

/**
 * What the model is told about a remote agent (its tool's description, the supervisor's routing line): the
 * card's name, description and skills. The card is the remote side's text: marker look-alikes are defused and it
 * is kept short.
 */
export function describeCard(card: Pick<AgentCard, 'name' | 'description' | 'skills'>): string {
  const skills = (card.skills ?? []).slice(0, MAX_SKILLS).map((s) => {
    const examples = (s.examples ?? [])
      .slice(0, 2)
      .map((e) => `"${e}"`)
      .join(', ');
    return `- ${s.name}${s.description ? `: ${s.description}` : ''}${examples ? ` (e.g. ${examples})` : ''}`;
  });
  const text = [
    `Remote agent "${card.name}" (A2A): ${card.description}`.trim(),
    ...(skills.length ? ['Skills:', ...skills] : []),
    'Send it one self-contained request in `message`; it answers in text.',
  ].join('\n');
  const clean = neutraliseMarkers(text.replace(/\s*\n\s*/g, '\n'));
  return clean.length > MAX_DESCRIPTION ? `${clean.slice(0, MAX_DESCRIPTION - 1)}…` : clean;
}

/** The card's skills, as readiness lists them. */
export const skillNames = (card: AgentCard) => (card.skills ?? []).map((s) => s.name);

/**
 * Every URL the card asks to be called at passes the SSRF guard's check (a private address only when its host is
 * allowed): refused here, the agent is reported down with the reason instead of failing at its first call.
 */
export async function checkInterfaces(card: AgentCard, opts: SafeFetchOptions): Promise<void> {
  const interfaces = card.supportedInterfaces ?? [];
  if (!interfaces.length) throw new ToolError('the agent card lists no interface to call');
  for (const i of interfaces) {
    let url: URL;
    try {
      url = new URL(i.url);
    } catch {
      throw new ToolError(`the agent card's interface URL "${i.url.slice(0, 100)}" is not a URL`);
    }
    try {
      await checkUrl(url, opts);
    } catch (err) {
      throw new ToolError(`the agent card's interface ${url.host}: ${(err as Error).message}`);
    }
  }
}
