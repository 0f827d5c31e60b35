import { defineSettings, optionalString, type SettingsOf, variable } from '../config/settings';

/** The LangGraph API dialect. */
export const langgraphApiSettings = defineSettings({
  module: 'langgraph-api',
  variables: {
    WEBHOOK_ALLOWED_HOSTS: variable(
      optionalString,
      'LangGraph API run webhooks: hosts (exact, comma-separated) allowed although they resolve to private or loopback addresses',
      'none',
    ),
  },
  build: (e) => ({
    /** WEBHOOK_ALLOWED_HOSTS: webhook hosts allowed although private (run webhooks are refused on private networks) */
    webhookAllowedHosts: (e.WEBHOOK_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  }),
});

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof langgraphApiSettings> {}
}
