import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** what a value of the expected type is called in a message */
const A: Record<string, string> = {
  string: 'a string',
  number: 'a number conforming to the specified constraints',
  int: 'an integer number',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  boolean: 'a boolean value',
};

/** `allow_tools.3` → `each value in allow_tools` (an element), `metadata` → `metadata` */
function subject(path: PropertyKey[]): string {
  const at = path.findIndex((p) => typeof p === 'number');
  if (at > 0) return `each value in ${path.slice(0, at).map(String).join('.')}`;
  return path.map(String).join('.') || 'body';
}

function tooBig(what: string, i: Extract<Issue, { code: 'too_big' }>): string {
  if (i.origin === 'string') return `${what} must be shorter than or equal to ${String(i.maximum)} characters`;
  if (i.origin === 'array') return `${what} must contain no more than ${String(i.maximum)} elements`;
  return `${what} must not be greater than ${String(i.maximum)}`;
}

function tooSmall(what: string, i: Extract<Issue, { code: 'too_small' }>): string {
  if (i.origin === 'string' && Number(i.minimum) <= 1) return `${what} must not be empty`;
  if (i.origin === 'string') return `${what} must be longer than or equal to ${String(i.minimum)} characters`;
  if (i.origin === 'array') return `${what} must contain at least ${String(i.minimum)} elements`;
  return `${what} must not be less than ${String(i.minimum)}`;
}

/**
 * A zod issue in the words REST v1 answered with before it validated with zod (class-validator's), so clients
 * matching on them keep working: `property x should not exist`, `kind must be one of the following values: …`.
 * A message the schema sets itself, starting with the field's name (`message must not be empty or blank`), is used
 * as it is.
 */
export function issueMessage(i: Issue): string[] {
  const what = subject(i.path);
  if (i.message.startsWith(`${what} `)) return [i.message];
  switch (i.code) {
    case 'unrecognized_keys':
      return i.keys.map((k) => `property ${[...i.path.map(String), k].join('.')} should not exist`);
    case 'invalid_type':
      return [`${what} must be ${A[i.expected] ?? i.expected}`];
    case 'invalid_value':
      return [`${what} must be one of the following values: ${i.values.map(String).join(', ')}`];
    case 'too_big':
      return [tooBig(what, i)];
    case 'too_small':
      return [tooSmall(what, i)];
    default:
      return [`${what}: ${i.message}`];
  }
}
