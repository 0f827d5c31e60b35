import { AgentCard, type SecurityRequirement, type SecurityScheme } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { Request } from 'express';

import type { AssistantWire } from '../assistants/assistants.repository';

/** How this service authenticates a caller, as a card advertises it. */
export interface CardAuth {
  /** API keys are configured: `x-api-key` or `Authorization: Bearer <key>` */
  apiKeys: boolean;
  /** bearer tokens (JWT) are accepted */
  tokens: boolean;
  /** langgraph.json's `auth` handler decides the LangGraph API's requests */
  custom: boolean;
}

const MODES = ['text/plain', 'application/json'];

/** The card's version: the assistant's (a built-in agent is version 1). */
function versionOf(a: AssistantWire): string {
  return String(a.version ?? 1);
}

function schemesOf(auth: CardAuth): Record<string, SecurityScheme> {
  const schemes: Record<string, SecurityScheme> = {};
  if (auth.apiKeys) {
    schemes.apiKey = {
      scheme: {
        $case: 'apiKeySecurityScheme',
        value: { description: "the service's API key", location: 'header', name: 'x-api-key' },
      },
    };
  }
  if (auth.apiKeys || auth.tokens || auth.custom) {
    const what = [
      auth.apiKeys && 'an API key',
      auth.tokens && "a token of the service's issuer",
      auth.custom && "what langgraph.json's auth handler accepts",
    ]
      .filter(Boolean)
      .join(', or ');
    schemes.bearer = {
      scheme: {
        $case: 'httpAuthSecurityScheme',
        value: {
          description: `Authorization: Bearer with ${what}`,
          scheme: 'Bearer',
          bearerFormat: auth.tokens && !auth.apiKeys ? 'JWT' : '',
        },
      },
    };
  }
  return schemes;
}

/**
 * The assistant as an A2A agent: one skill naming what it does, streaming without push notifications, the
 * credentials this service takes (any one of them; none when it runs without authentication), and the JSON-RPC
 * endpoint at `url` for A2A 1.0 and 0.3.
 */
export function agentCardOf(assistant: AssistantWire, url: string, auth: CardAuth): AgentCard {
  const schemes = schemesOf(auth);
  const requirements: SecurityRequirement[] = Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [] } } }));
  const name = assistant.name || assistant.graph_id;
  const description = assistant.description || `The "${assistant.graph_id}" agent (assistant ${assistant.assistant_id}).`;
  return {
    name,
    description,
    version: versionOf(assistant),
    provider: undefined,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
      ['JSONRPC'],
    ),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: schemes,
    securityRequirements: requirements,
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: assistant.graph_id,
        name,
        description,
        tags: [assistant.graph_id],
        examples: [],
        inputModes: MODES,
        outputModes: MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The card as A2A 1.0's JSON (the protobuf JSON form the SDK's clients read). */
export function agentCardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}

function firstOf(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim() || undefined;
}

/** a path prefix a proxy says it mounted the service under (`/agents`), when well-formed */
const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

/**
 * The URL of `path` on this server as the client reached it: a trusted proxy's X-Forwarded-Proto / -Host /
 * -Prefix (the request edge dropped them from anyone else), else this request's scheme and Host; `mount` is
 * what came before the route's own path in the request (an embedding application's prefix).
 */
export function publicUrl(req: Request, mount: string, path: string): string {
  const proto = firstOf(req.headers['x-forwarded-proto']) ?? req.protocol;
  const host = firstOf(req.headers['x-forwarded-host']) ?? req.headers.host ?? 'localhost';
  const forwarded = firstOf(req.headers['x-forwarded-prefix'])?.replace(/\/+$/, '');
  const prefix = forwarded && PREFIX.test(forwarded) ? forwarded : '';
  return `${proto === 'https' ? 'https' : 'http'}://${host}${prefix}${mount}${path}`;
}
