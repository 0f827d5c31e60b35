import { z } from 'zod';

import { bool, defineSettings, int, invalidConfiguration, list, optionalString, type SettingsOf, variable } from '../config/settings';
import { isTimeZone, systemTimeZone } from './basic/time-zones';
import { parseConsentRules } from './tool-consent';

export interface ToolSettings {
  network: boolean;
  /** host names allowed although they resolve to private addresses (self-hosted services) */
  allowedPrivateHosts: string[];
  timeoutMs: number;
  /** `language`: WIKIPEDIA_LANGUAGE; unset → the language of the user's message */
  wikipedia: { baseUrl?: string; language?: string };
  weather: { apiKey?: string; baseUrl?: string };
  webSearch: { apiKey?: string; baseUrl?: string };
  readFileRoot?: string;
  pythonRepl: { enabled: boolean; timeoutMs: number };
}

/** The built-in tools: network access, their endpoints and keys, the sandbox, approvals. */
export const toolsSettings = defineSettings({
  module: 'tools',
  variables: {
    TOOLS_NETWORK: variable(bool(true), 'network tools on or off'),
    TOOLS_ALLOWED_PRIVATE_HOSTS: variable(
      optionalString,
      'comma-separated host names the network tools may reach although they resolve to private addresses (self-hosted services)',
      'none',
    ),
    TOOLS_TIMEOUT_MS: variable(int(10_000, 100), "the network tools' time limit"),
    WIKIPEDIA_BASE_URL: variable(
      optionalString,
      '`search_wikipedia` (MediaWiki API)',
      "the Wikipedia edition of `WIKIPEDIA_LANGUAGE`, else of the user's language",
    ),
    WIKIPEDIA_LANGUAGE: variable(
      optionalString,
      "`search_wikipedia`'s language, fixed (e.g. `ko`)",
      "unset → the language of the user's message (`DEFAULT_LANGUAGE` when its script tells none)",
    ),
    DEFAULT_TIMEZONE: variable(
      optionalString,
      '`get_current_datetime`\'s zone (IANA name) when the question names no place or zone ("What time is it in Berlin?" → `Europe/Berlin`)',
      "the process's `Intl` time zone",
    ),
    OPENWEATHER_API_KEY: variable(optionalString, '`get_weather` (unavailable without a key)'),
    OPENWEATHER_BASE_URL: variable(optionalString, "`get_weather`'s endpoint"),
    TAVILY_API_KEY: variable(optionalString, '`web_search` (unavailable without a key)'),
    TAVILY_BASE_URL: variable(optionalString, "`web_search`'s endpoint"),
    READ_FILE_ROOT: variable(optionalString, '`read_file` reads only below this directory (unavailable when unset)'),
    PYTHON_REPL_ENABLED: variable(
      bool(false),
      '`python_repl` in a bubblewrap sandbox (`/usr/bin/bwrap`, Debian `bubblewrap`; unprivileged user namespaces): read-only `/usr` only, private 64 MB `/tmp`, no network or host sockets, rlimits set outside Python; unavailable (never unsandboxed) without bwrap',
    ),
    PYTHON_REPL_TIMEOUT_MS: variable(int(10_000, 100), "`python_repl`'s time limit"),
    TOOL_APPROVAL: variable(
      optionalString,
      'comma-separated tool names (e.g. `python_repl,read_file`) whose every call pauses the run (status `interrupted`) until `POST /v1/jobs/{id}/approve` or `/reject`; a sync `POST /v1/chat` then answers at once with `metadata: { status: "interrupted", approval_pending: true, job_id, pending_approval }`',
      'unset (no approvals)',
    ),
    TOOL_CONSENT: variable(
      optionalString,
      'comma-separated high-risk tools allowed to run in a turn that holds retrieved or tool-produced text, each `tool` (every agent) or `agent:tool` (e.g. `plan-execute:python_repl`); a request adds its own with `allow_tools`. Network tools (`web_search`, `search_wikipedia`) still refuse arguments carrying words of that text which the user did not write',
      'unset (none)',
    ),
    TOOL_TAINTED_CALLS: variable(
      z.enum(['block', 'approve']).default('block'),
      'a high-risk call in a turn holding untrusted text, without consent (`allow_tools`, `TOOL_CONSENT`): `block` (the model is told it did not run) or `approve` (the run waits for `POST /v1/jobs/{id}/approve` or `/reject`, as with `TOOL_APPROVAL`)',
    ),
  },
  build: (e) => {
    if (e.DEFAULT_TIMEZONE && !isTimeZone(e.DEFAULT_TIMEZONE)) {
      throw invalidConfiguration(`DEFAULT_TIMEZONE: unknown time zone "${e.DEFAULT_TIMEZONE}" (use an IANA name such as Europe/Berlin)`);
    }
    const tools: ToolSettings = {
      network: e.TOOLS_NETWORK,
      allowedPrivateHosts: list(e.TOOLS_ALLOWED_PRIVATE_HOSTS),
      timeoutMs: e.TOOLS_TIMEOUT_MS,
      wikipedia: { baseUrl: e.WIKIPEDIA_BASE_URL, language: e.WIKIPEDIA_LANGUAGE },
      weather: { apiKey: e.OPENWEATHER_API_KEY, baseUrl: e.OPENWEATHER_BASE_URL },
      webSearch: { apiKey: e.TAVILY_API_KEY, baseUrl: e.TAVILY_BASE_URL },
      readFileRoot: e.READ_FILE_ROOT,
      pythonRepl: { enabled: e.PYTHON_REPL_ENABLED, timeoutMs: e.PYTHON_REPL_TIMEOUT_MS },
    };
    return {
      tools,
      /** DEFAULT_TIMEZONE, else the process's zone: get_current_datetime's zone when a question names none */
      defaultTimeZone: e.DEFAULT_TIMEZONE ?? systemTimeZone(),
      /** injection: TOOL_APPROVAL — calls of these tools wait for POST /v1/jobs/{id}/approve | reject */
      toolApproval: new Set(list(e.TOOL_APPROVAL)) as ReadonlySet<string>,
      /** injection: TOOL_CONSENT and TOOL_TAINTED_CALLS — who may let high-risk calls run after untrusted text */
      toolConsent: { rules: parseConsentRules(list(e.TOOL_CONSENT)), askWhenTainted: e.TOOL_TAINTED_CALLS === 'approve' },
    };
  },
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof toolsSettings> {}
}
