import type { StructuredToolInterface } from '@langchain/core/tools';

import { createGetWeatherTool, getWeatherAvailability, type GetWeatherOptions } from './get-weather.tool';
import { createPythonReplTool, pythonReplAvailability, type PythonReplOptions } from './python-repl.tool';
import { createReadFileTool, readFileAvailability, type ReadFileOptions } from './read-file.tool';
import { createSearchWikipediaTool, searchWikipediaAvailability, type SearchWikipediaOptions } from './search-wikipedia.tool';
import type { Availability, NetworkOptions } from './types';
import { createWebSearchTool, webSearchAvailability, type WebSearchOptions } from './web-search.tool';

export * from './get-weather.tool';
export { blockedAddressReason } from './ip-policy';
export { checkUrl, safeFetch, type SafeFetchInit, type SafeFetchOptions, type SafeResponse } from './network-guard';
export * from './python-repl.tool';
export * from './read-file.tool';
export * from './search-wikipedia.tool';
export { ToolError } from './tool-error';
export type { Availability, NetworkOptions } from './types';
export * from './web-search.tool';

export interface GeneralToolsOptions {
  /** Defaults for every HTTP tool; a tool's own `network` fields override these. */
  network?: NetworkOptions;
  wikipedia?: SearchWikipediaOptions;
  weather?: GetWeatherOptions;
  webSearch?: WebSearchOptions;
  readFile?: ReadFileOptions;
  pythonRepl?: PythonReplOptions;
}

export interface UnavailableTool {
  name: string;
  reason: string;
}

interface Entry {
  name: string;
  availability: () => Availability;
  create: () => StructuredToolInterface;
}

/**
 * Builds the general tools (search_wikipedia, get_weather, web_search, read_file, python_repl) that can
 * run with `options`, and lists the others with the reason they are unavailable. calculator and
 * get_current_datetime live in ../basic.
 */
export function createGeneralTools(options: GeneralToolsOptions = {}): {
  tools: StructuredToolInterface[];
  unavailable: UnavailableTool[];
} {
  const net = (own: NetworkOptions | undefined): NetworkOptions => ({ ...options.network, ...own });
  const wikipedia = { ...options.wikipedia, network: net(options.wikipedia?.network) };
  const weather = { ...options.weather, network: net(options.weather?.network) };
  const webSearch = { ...options.webSearch, network: net(options.webSearch?.network) };
  const readFile = options.readFile ?? {};
  const pythonRepl = options.pythonRepl ?? {};
  const entries: Entry[] = [
    {
      name: 'search_wikipedia',
      availability: () => searchWikipediaAvailability(wikipedia),
      create: () => createSearchWikipediaTool(wikipedia),
    },
    { name: 'get_weather', availability: () => getWeatherAvailability(weather), create: () => createGetWeatherTool(weather) },
    { name: 'web_search', availability: () => webSearchAvailability(webSearch), create: () => createWebSearchTool(webSearch) },
    { name: 'read_file', availability: () => readFileAvailability(readFile), create: () => createReadFileTool(readFile) },
    { name: 'python_repl', availability: () => pythonReplAvailability(pythonRepl), create: () => createPythonReplTool(pythonRepl) },
  ];
  const tools: StructuredToolInterface[] = [];
  const unavailable: UnavailableTool[] = [];
  for (const entry of entries) {
    const status = entry.availability();
    if (status.available) tools.push(entry.create());
    else unavailable.push({ name: entry.name, reason: status.reason ?? 'unavailable' });
  }
  return { tools, unavailable };
}
