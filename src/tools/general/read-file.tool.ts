import { constants, promises as fs, statSync } from 'node:fs';
import path from 'node:path';

import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { ToolError } from './tool-error';
import type { Availability } from './types';

export interface ReadFileOptions {
  /** Directory the tool may read below. Without it the tool is unavailable. */
  root?: string;
  /** Files bigger than this are truncated to their first `maxBytes` bytes, with a note. Default 256 KB. */
  maxBytes?: number;
}

export const DEFAULT_READ_FILE_MAX_BYTES = 256 * 1024;

export function readFileAvailability(options: ReadFileOptions = {}): Availability {
  if (!options.root) return { available: false, reason: 'no read_file root directory configured' };
  try {
    if (!statSync(options.root).isDirectory()) return { available: false, reason: 'the read_file root is not a directory' };
  } catch {
    return { available: false, reason: 'the read_file root directory does not exist' };
  }
  return { available: true };
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Rejects anything but a plain relative path without `..` segments; returns the normalized path. */
function checkRelative(requested: string): string {
  if (!requested.trim()) throw new ToolError('path is empty');
  if (requested.includes('\0')) throw new ToolError('path contains a NUL byte');
  if (path.isAbsolute(requested) || /^[a-zA-Z]:[\\/]/.test(requested) || requested.startsWith('\\')) {
    throw new ToolError('refused: absolute paths are not allowed; give a path relative to the workspace root');
  }
  if (requested.split(/[\\/]+/).includes('..')) throw new ToolError('refused: ".." is not allowed in paths');
  if (requested.startsWith('~')) throw new ToolError('refused: "~" paths are not allowed; give a path relative to the workspace root');
  return path.normalize(requested);
}

/** Cuts `buf` back to the last complete UTF-8 character so a truncated read still decodes. */
function utf8Boundary(buf: Buffer): Buffer {
  let i = buf.length - 1;
  let back = 0;
  while (i >= 0 && back < 3 && (buf[i] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return buf;
  const lead = buf[i];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buf.length - i < need ? buf.subarray(0, i) : buf;
}

function decodeText(buf: Buffer, shown: string): string {
  if (buf.includes(0)) throw new ToolError(`refused: "${shown}" looks like a binary file; only text files can be read`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new ToolError(`refused: "${shown}" is not UTF-8 text; only text files can be read`);
  }
}

/**
 * Reads a UTF-8 text file below `root`. Refuses absolute paths, `..`, symlinks that resolve outside the
 * root (realpath of the target vs realpath of the root), directories and other non-regular files.
 */
export async function readFileBelowRoot(requested: string, options: ReadFileOptions): Promise<string> {
  if (!options.root) throw new ToolError('read_file is not configured (no root directory)');
  const maxBytes = options.maxBytes ?? DEFAULT_READ_FILE_MAX_BYTES;
  const relative = checkRelative(requested);
  const root = await fs.realpath(options.root);
  let target: string;
  try {
    target = await fs.realpath(path.resolve(root, relative));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`file not found: "${requested}"`);
    if (code === 'ELOOP') throw new ToolError(`refused: "${requested}" is a symlink loop`);
    throw new ToolError(`cannot read "${requested}": ${code ?? 'error'}`);
  }
  if (!isInside(root, target)) throw new ToolError(`refused: "${requested}" resolves outside the workspace root`);
  const info = await fs.lstat(target);
  if (info.isDirectory()) throw new ToolError(`refused: "${requested}" is a directory, not a file`);
  if (!info.isFile()) throw new ToolError(`refused: "${requested}" is not a regular file`);

  // O_NOFOLLOW + O_NONBLOCK: a component swapped for a symlink or a FIFO after the checks above cannot
  // redirect or block the read; the fd is then re-checked (fstat + /proc/self/fd) before reading.
  const handle = await fs.open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: unknown) => {
    throw new ToolError(`cannot open "${requested}": ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ToolError(`refused: "${requested}" is not a regular file`);
    const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => target);
    if (!isInside(root, opened)) throw new ToolError(`refused: "${requested}" resolves outside the workspace root`);
    const want = Math.min(stat.size, maxBytes);
    const buf = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buf, 0, want, 0);
    const truncated = stat.size > maxBytes;
    const data = truncated ? utf8Boundary(buf.subarray(0, bytesRead)) : buf.subarray(0, bytesRead);
    const text = decodeText(data, requested);
    if (!truncated) return text;
    return `${text}\n\n[truncated: "${requested}" is ${stat.size} bytes; only the first ${data.length} bytes are shown]`;
  } finally {
    await handle.close();
  }
}

export function createReadFileTool(options: ReadFileOptions): StructuredToolInterface {
  return tool(async ({ path: requested }: { path: string }) => readFileBelowRoot(requested, options), {
    name: 'read_file',
    description:
      'Reads a UTF-8 text file from the workspace directory and returns its content. ' +
      `Paths are relative to the workspace root (e.g. "notes/todo.md"); large files are truncated at ${Math.round(
        (options.maxBytes ?? DEFAULT_READ_FILE_MAX_BYTES) / 1024,
      )} KB.`,
    schema: z.object({
      path: z.string().min(1).max(1024).describe('file path relative to the workspace root, e.g. "docs/readme.md"'),
    }),
  });
}
