import { safeFetch, type SafeFetchInit, type SafeFetchOptions } from './network-guard';
import { ToolError } from './tool-error';

export interface JsonResponse {
  status: number;
  ok: boolean;
  data: unknown;
}

/** `safeFetch` + JSON parsing; a non-JSON body becomes a ToolError naming the service (never the URL or key). */
export async function requestJson(service: string, url: URL, init: SafeFetchInit, opts: SafeFetchOptions): Promise<JsonResponse> {
  const res = await safeFetch(url, { ...init, headers: { accept: 'application/json', ...init.headers } }, opts);
  try {
    return { status: res.status, ok: res.ok, data: res.json() };
  } catch {
    throw new ToolError(res.ok ? `${service} returned a response that is not JSON` : `${service} returned HTTP ${res.status}`);
  }
}

/** Reads `obj[key]` from an unknown JSON value without trusting its shape. */
export function field(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max).trimEnd()}…`;
}
