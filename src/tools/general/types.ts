import type { SafeFetchOptions } from './network-guard';

/** Whether a tool can be offered, and if not, why (shown in `GET /v1/tools`). */
export interface Availability {
  available: boolean;
  reason?: string;
}

/** Outbound-network settings shared by the HTTP tools; every field has a safe default. */
export interface NetworkOptions extends Partial<SafeFetchOptions> {
  /** `false` = this deployment has no outbound network: HTTP tools report themselves unavailable. */
  enabled?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export function resolveNetwork(network: NetworkOptions | undefined): SafeFetchOptions {
  return {
    timeoutMs: network?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: network?.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    allowPrivateNetwork: network?.allowPrivateNetwork ?? false,
    allowedPrivateHosts: network?.allowedPrivateHosts,
    lookup: network?.lookup,
  };
}

/** Common availability check for the HTTP tools: network switched on, key present when one is needed. */
export function networkToolAvailability(
  network: NetworkOptions | undefined,
  key: { value: string | undefined; what: string } | undefined,
): Availability {
  if (network?.enabled === false) return { available: false, reason: 'outbound network access is disabled in this deployment' };
  if (key && !key.value?.trim()) return { available: false, reason: `no ${key.what} configured` };
  return { available: true };
}
