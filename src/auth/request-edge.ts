import { BlockList, isIP } from 'node:net';

import type { NextFunction, Request, Response } from 'express';

import type { DomainException } from '../core/errors';
import { InvalidHostException, InvalidPathException } from './auth-errors';

/**
 * The front of the HTTP pipeline, before authentication and routing (app.factory.ts, the embeddable module):
 * one place that makes the request's path and host unambiguous, so that authentication (open paths), Nest's
 * router, langgraph.json's custom auth and the `http` app (which sees a fetch `Request` built by `new URL()`)
 * all read the same path. `new URL()` resolves `..`, `%2e%2e`, backslashes and tabs itself while Express does
 * not: `/health/../custom/secret` was open to one and a custom route to the other.
 *
 * Refused (400 `INVALID_PATH`): a target that is not an absolute path; dot segments; empty segments (`//`);
 * percent-encoded dots, slashes, backslashes, percent signs (double encoding) and control characters;
 * malformed percent escapes and escapes that are not UTF-8 (overlong `%C0%AE`); any raw character outside RFC 3986's path characters (backslash, space, control
 * characters, raw non-ASCII, `#`, quotes, `<>`, `{}`, `|`, `^`, backtick). Canonicalised once: percent-encoded
 * unreserved characters are decoded (`%68ealth` → `health`) and other escapes upper-cased, in `req.url` and
 * `req.originalUrl` both.
 */

/** RFC 3986 `pchar` plus `/`: what a path may hold raw */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
/** escapes that would change the path's structure once decoded by some layer (dot, slash, backslash, percent, controls) */
const AMBIGUOUS_ESCAPE = /%(?:2e|2f|5c|25|[01][0-9a-f]|7f)/i;
const UNRESERVED = /^[A-Za-z0-9\-_~]$/;
/** a query may hold anything printable but `#` (raw spaces, controls and non-ASCII are refused) */
const QUERY_CHARS = /^[\x21-\x22\x24-\x7e]*$/;

/** The canonical form of a request target (`/path?query`), or why it is refused. */
export function canonicalTarget(target: string): { target: string } | { refused: string } {
  if (!target.startsWith('/')) return { refused: 'it must be an absolute path' };
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  if (!PATH_CHARS.test(path))
    return { refused: 'it holds a character that must be percent-encoded (backslash, space, control, non-ASCII, …)' };
  if (!QUERY_CHARS.test(query)) return { refused: 'its query holds a raw space, control or non-ASCII character, or #' };
  if (path.includes('//')) return { refused: 'it holds an empty segment (//)' };
  // a dot segment starts right after a slash; a path without escapes is already canonical (most requests)
  if (path.includes('/.') && path.split('/').some((s) => s === '.' || s === '..')) return { refused: 'it holds a dot segment (. or ..)' };
  if (!path.includes('%')) return { target };
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) return { refused: 'it holds a malformed percent escape' };
  if (AMBIGUOUS_ESCAPE.test(path)) {
    return { refused: 'it holds a percent-encoded dot, slash, backslash, percent sign or control character' };
  }
  if (!decodesAsUtf8(path)) return { refused: 'its percent escapes are not UTF-8 (e.g. an overlong %C0%AE)' };
  const canonical = path.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  return { target: q < 0 ? canonical : `${canonical}?${query}` };
}

/** whether every layer can decode the path's escapes (Express's params, Hono's router): malformed UTF-8 is refused here once */
function decodesAsUtf8(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** a Host (or X-Forwarded-Host) value: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252})?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

export function isValidHost(value: string): boolean {
  return HOST.test(value);
}

/** the headers a proxy sets about the client: dropped unless the peer is a trusted proxy */
const FORWARDED_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-forwarded-server',
  'x-real-ip',
];

/**
 * Whether a peer address is one of TRUSTED_PROXIES: IP addresses, CIDR ranges, or `loopback`. Empty: none
 * (the default), so forwarded headers from anyone are dropped.
 */
export function proxyTrust(entries: readonly string[]): (address: string | undefined) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    if (!address) return false;
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** Checks one TRUSTED_PROXIES entry (the settings' validation): an IP address, a CIDR range, or `loopback`. */
export function isProxyEntry(entry: string): boolean {
  if (entry === 'loopback') return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

const values = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => x.split(','));

/** A trusted proxy's X-Forwarded-Host / X-Forwarded-Proto must be well-formed (else 400, never a 500 further on). */
function checkForwarded(req: Request): DomainException | undefined {
  if (values(req.headers['x-forwarded-host']).some((h) => !isValidHost(h.trim()))) return new InvalidHostException('X-Forwarded-Host');
  if (values(req.headers['x-forwarded-proto']).some((p) => !/^https?$/i.test(p.trim()))) {
    return new InvalidHostException('X-Forwarded-Proto', '"http" or "https"');
  }
  return undefined;
}

/**
 * The middleware: refuses an ambiguous path or a malformed Host (400, through `refuse`), drops forwarded
 * headers unless the peer is a trusted proxy (and checks them when it is), and rewrites the target to its
 * canonical form for every later layer.
 */
export function requestEdge(
  trusted: (address: string | undefined) => boolean,
  refuse: (err: DomainException, req: Request, res: Response) => void,
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const canonical = canonicalTarget(req.originalUrl ?? req.url);
    if ('refused' in canonical) return refuse(new InvalidPathException(canonical.refused), req, res);
    const host = req.headers.host;
    if (host !== undefined && !isValidHost(host)) return refuse(new InvalidHostException('Host'), req, res);
    if (!trusted(req.socket?.remoteAddress)) {
      // deleted only where present: a delete turns the headers object into a slower dictionary for every later read
      for (const name of FORWARDED_HEADERS) if (req.headers[name] !== undefined) delete req.headers[name];
    } else {
      const bad = checkForwarded(req);
      if (bad) return refuse(bad, req, res);
    }
    if (canonical.target !== req.originalUrl) {
      req.url = canonical.target;
      req.originalUrl = canonical.target;
    }
    next();
  };
}

/**
 * The URL of a request as a fetch `Request` carries it (langgraph.json's custom auth, the `http` app): built
 * from the canonical target and the checked Host, and refused (400) if `new URL()` would read another path
 * than the one Express routed — the layers must never disagree about where a request goes.
 */
export function requestUrl(req: Request): URL {
  const host = req.headers.host ?? 'localhost';
  let url: URL;
  try {
    url = new URL(req.originalUrl, `${req.protocol === 'https' ? 'https' : 'http'}://${host}`);
  } catch {
    throw new InvalidHostException('Host');
  }
  if (url.pathname !== req.originalUrl.split('?')[0]) throw new InvalidPathException('it reads differently once parsed as a URL');
  return url;
}
