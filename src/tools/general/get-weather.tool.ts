import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { type Language, localize, type Messages, turnLanguage } from '../../core/language';
import { asNumber, asString, field, requestJson } from './http-json';
import { ToolError } from './tool-error';
import { type Availability, type NetworkOptions, networkToolAvailability, resolveNetwork } from './types';

export interface GetWeatherOptions {
  /** OpenWeather API key; without it the tool is unavailable. */
  apiKey?: string;
  /** Default `https://api.openweathermap.org/data/2.5`; `/weather` is appended. */
  baseUrl?: string;
  /** Language of the weather description (OpenWeather's code). Default: the user's language (`kr` for Korean). */
  lang?: string;
  network?: NetworkOptions;
}

const DEFAULT_BASE_URL = 'https://api.openweathermap.org/data/2.5';

export function getWeatherAvailability(options: GetWeatherOptions = {}): Availability {
  if (!URL.canParse(options.baseUrl ?? DEFAULT_BASE_URL)) return { available: false, reason: 'invalid OpenWeather base URL' };
  return networkToolAvailability(options.network, { value: options.apiKey, what: 'OpenWeather API key' });
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

const LABELS: Messages<{ temp: string; feels: string; minMax: string; humidity: string; wind: string; unknown: string; now: string }> = {
  en: {
    temp: 'temperature',
    feels: 'feels like',
    minMax: 'min/max',
    humidity: 'humidity',
    wind: 'wind',
    unknown: 'unknown place',
    now: 'current weather',
  },
  ko: { temp: '기온', feels: '체감', minMax: '최저/최고', humidity: '습도', wind: '풍속', unknown: '알 수 없는 지역', now: '현재 날씨' },
};

/** OpenWeather's `lang` code for a language (its Korean and Chinese codes differ from ISO 639-1). */
function openWeatherLang(language: Language): string {
  return ({ ko: 'kr', zh: 'zh_cn' } as Partial<Record<Language, string>>)[language] ?? language;
}

/** Formats an OpenWeather "current weather" response as one line in `language` (English labels for a language without its own). */
export function formatWeather(data: unknown, language: Language = 'ko'): string {
  const l = localize(LABELS, language);
  const main = field(data, 'main');
  const num = (obj: unknown, key: string) => asNumber(field(obj, key));
  const weather = field(data, 'weather');
  const description = asString(field(Array.isArray(weather) ? weather[0] : undefined, 'description'));
  const [temp, feels, min, max, humidity] = ['temp', 'feels_like', 'temp_min', 'temp_max', 'humidity'].map((k) => num(main, k));
  const wind = num(field(data, 'wind'), 'speed');
  const parts = [
    description,
    temp !== undefined ? `${l.temp} ${round1(temp)}°C` : undefined,
    feels !== undefined ? `${l.feels} ${round1(feels)}°C` : undefined,
    min !== undefined && max !== undefined ? `${l.minMax} ${round1(min)}/${round1(max)}°C` : undefined,
    humidity !== undefined ? `${l.humidity} ${humidity}%` : undefined,
    wind !== undefined ? `${l.wind} ${round1(wind)} m/s` : undefined,
  ].filter((p): p is string => Boolean(p));
  if (parts.length === 0) throw new ToolError('weather service returned no usable data');
  const name = asString(field(data, 'name')) ?? l.unknown;
  const country = asString(field(field(data, 'sys'), 'country'));
  return `${name}${country ? ` (${country})` : ''} ${l.now}: ${parts.join(', ')}`;
}

/** Current weather for a city from OpenWeather (metric units). */
export async function getWeather(
  city: string,
  options: GetWeatherOptions,
  signal?: AbortSignal,
  language: Language = 'ko',
): Promise<string> {
  if (!options.apiKey) throw new ToolError('get_weather is not configured (no API key)');
  const base = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const url = new URL(`${base}/weather`);
  url.searchParams.set('q', city);
  url.searchParams.set('units', 'metric');
  url.searchParams.set('lang', options.lang ?? openWeatherLang(language));
  url.searchParams.set('appid', options.apiKey);
  const res = await requestJson('weather service', url, { signal }, resolveNetwork(options.network));
  if (res.status === 404) throw new ToolError(`city not found: "${city}" — try the English name, e.g. "Seoul" or "Busan,KR"`);
  if (res.status === 401) throw new ToolError('the weather service rejected the configured API key');
  if (res.status === 429) throw new ToolError('the weather service rate limit was exceeded; try again later');
  if (!res.ok) {
    const message = asString(field(res.data, 'message'));
    throw new ToolError(`weather service returned HTTP ${res.status}${message ? `: ${message}` : ''}`);
  }
  return formatWeather(res.data, language);
}

export function createGetWeatherTool(options: GetWeatherOptions): StructuredToolInterface {
  // in the user's language: the run's (city names are English whatever the user writes, so not the city's)
  return tool(async ({ city }: { city: string }, config) => getWeather(city, options, config?.signal, turnLanguage(config, '')), {
    name: 'get_weather',
    description:
      'Returns the current weather (description, temperature in °C, feels-like, humidity, wind) for a city. ' +
      'Use English city names, optionally with a country code, e.g. "Seoul", "Busan,KR", "London,GB".',
    schema: z.object({
      city: z.string().trim().min(1).max(100).describe('city name, e.g. "Seoul" or "Tokyo,JP"'),
    }),
  });
}
