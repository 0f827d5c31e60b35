import { readSlice } from '../config/settings';
import { langgraphApiSettings } from './langgraph-api.settings';

describe('langgraph-api settings', () => {
  it('webhook hosts: none by default, lower-cased', () => {
    expect(readSlice(langgraphApiSettings, {}).webhookAllowedHosts).toEqual([]);
    expect(readSlice(langgraphApiSettings, { WEBHOOK_ALLOWED_HOSTS: 'Hooks.Local, 10.0.0.5' }).webhookAllowedHosts).toEqual([
      'hooks.local',
      '10.0.0.5',
    ]);
  });
});
