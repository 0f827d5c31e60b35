import { isIP } from 'node:net';

/**
 * Which IP addresses an outbound tool request may connect to. Everything that is not plainly a public
 * unicast address is refused: private ranges, loopback, link-local (incl. cloud metadata 169.254.169.254),
 * CGNAT, unique-local IPv6, multicast, reserved and documentation ranges, and IPv6 forms that embed an
 * IPv4 address (mapped, compatible, NAT64, 6to4) when the embedded address is itself refused.
 */

type Range4 = readonly [base: string, prefix: number, label: string];

const BLOCKED_V4: readonly Range4[] = [
  ['0.0.0.0', 8, 'unspecified/"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local / cloud metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved/broadcast'],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function inRange4(value: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  const start = v4ToInt(base);
  return value >= start && value < start + size;
}

function blockedV4(ip: string): string | null {
  const value = v4ToInt(ip);
  const hit = BLOCKED_V4.find(([base, prefix]) => inRange4(value, base, prefix));
  return hit ? hit[2] : null;
}

/** Expands an IPv6 address (already validated by `isIP`) to 8 16-bit groups; a trailing dotted quad is folded in. */
function v6Groups(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToInt(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

function groupsToV4(hi: number, lo: number): string {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

function blockedV6(ip: string): string | null {
  const g = v6Groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const embedded = (label: string, hi: number, lo: number) => {
    const reason = blockedV4(groupsToV4(hi, lo));
    return reason ? `${label} of a ${reason} IPv4 address` : null;
  };
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  if (zeros(0, 5) && g[5] === 0xffff) return embedded('IPv4-mapped form', g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return 'IPv4-translated (SIIT)';
  if (zeros(0, 6)) return 'IPv4-compatible (deprecated)';
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g[2] === 1) return 'NAT64 local-use';
    if (zeros(2, 6)) return embedded('NAT64 form', g[6], g[7]);
  }
  if (g[0] === 0x2002) return embedded('6to4 form', g[1], g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return 'Teredo tunnel';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'documentation';
  if (g[0] === 0x0100 && zeros(1, 4)) return 'discard-only';
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local (deprecated)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/**
 * Why `address` must not be contacted, or `null` when it is a public address. A string that is not an
 * IP address at all is refused too (callers pass resolved addresses, never host names).
 */
export function blockedAddressReason(address: string): string | null {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return blockedV4(ip);
  if (family === 6) return blockedV6(ip.toLowerCase());
  return 'not an IP address';
}
