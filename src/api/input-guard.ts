import type { NextFunction, Request, Response } from 'express';

import { dialectOf } from '../http/dialect';
import { sendError as send } from '../http/error-rendering';

/** Keys that would reach an object's prototype machinery; never valid in our bodies. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Which paths take multipart uploads besides JSON. */
const MULTIPART_PATHS = /^\/v1\/contracts\/?$/;

/** The refusal in the dialect of the request's path (a LangGraph route gets the LangGraph API's shape). */
function refuse(req: Request, res: Response, status: number, code: string, message: string): void {
  send(res, { status, code, message }, dialectOf(req.path));
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** 415 for a body that is not JSON (or multipart where uploads are taken), before anything reads it. */
export function contentTypeGuard(req: Request, res: Response, next: NextFunction): void {
  if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const json = type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
  if (json || (type === 'multipart/form-data' && MULTIPART_PATHS.test(req.path))) return next();
  refuse(
    req,
    res,
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `content-type "${type.slice(0, 80) || '(none)'}" is not accepted here; send application/json${MULTIPART_PATHS.test(req.path) ? ' or multipart/form-data' : ''}`,
  );
}

/**
 * What is wrong with a parsed body, or null: NUL characters and lone surrogates in any string or key
 * (Postgres cannot store them), nesting deeper than `maxDepth`, prototype keys. Iterative, so a
 * deeply nested body cannot overflow the stack here.
 */
export function findBadInput(value: unknown, maxDepth: number): string | null {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: 'body' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === 'string') {
      const bad = badString(v);
      if (bad) return `${path} ${bad}`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `${path}: nesting is deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ v: item, depth: depth + 1, path: `${path}[${i}]` }));
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) return `${path}: the key "${key}" is not allowed`;
      const bad = badString(key);
      if (bad) return `${path}: a key ${bad}`;
      stack.push({ v: (v as Record<string, unknown>)[key], depth: depth + 1, path: `${path}.${key}` });
    }
  }
  return null;
}

// a high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badString(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone surrogate (invalid Unicode)';
  return null;
}

/** 400 `INVALID_INPUT` for what findBadInput rejects, after the JSON parser and before validation. */
export function inputGuard(maxDepth: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = findBadInput(req.body, maxDepth) ?? findBadInput(req.query, maxDepth);
    if (problem) return refuse(req, res, 400, 'INVALID_INPUT', problem);
    next();
  };
}

/** An uploaded contract must be UTF-8 text: archives, binaries and NUL bytes are refused. */
export function uploadProblem(buffer: Buffer): string | null {
  if (buffer.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return 'the file is a zip archive, not a text contract';
  if (buffer.includes(0)) return 'the file contains NUL bytes (binary content), not a text contract';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    return 'the file is not valid UTF-8 text';
  }
  return null;
}
