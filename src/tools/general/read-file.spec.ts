import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { createReadFileTool, readFileAvailability, readFileBelowRoot } from './read-file.tool';
import { ToolError } from './tool-error';

describe('read_file', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'read-file-'));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET');
    writeFileSync(path.join(root, 'hello.txt'), 'hello world\n');
    writeFileSync(path.join(root, 'sub', 'note.md'), '# 메모\n한글 텍스트');
    writeFileSync(path.join(root, 'big.txt'), 'a'.repeat(300 * 1024));
    writeFileSync(path.join(root, 'korean.txt'), '가'.repeat(100)); // 3 bytes per character
    writeFileSync(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    writeFileSync(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
    symlinkSync(outside, path.join(root, 'escape-dir'));
    symlinkSync('hello.txt', path.join(root, 'alias.txt'));
    symlinkSync('/etc/hostname', path.join(root, 'abs-link'));
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const read = (p: string, maxBytes?: number) => readFileBelowRoot(p, { root, maxBytes });

  it('reads a text file below the root, also through the tool interface', async () => {
    await expect(read('hello.txt')).resolves.toBe('hello world\n');
    await expect(read('./sub//note.md')).resolves.toBe('# 메모\n한글 텍스트');
    await expect(createReadFileTool({ root }).invoke({ path: 'sub/note.md' })).resolves.toContain('한글 텍스트');
  });

  it('follows a symlink that stays inside the root', async () => {
    await expect(read('alias.txt')).resolves.toBe('hello world\n');
  });

  it.each(['/etc/passwd', '\\etc\\passwd', 'C:\\Windows\\win.ini', '~/.ssh/id_rsa'])('refuses the absolute path %s', async (p) => {
    await expect(read(p)).rejects.toThrow(/refused: (absolute|"~")/);
  });

  it('refuses an absolute path even when it points inside the root', async () => {
    await expect(read(path.join(root, 'hello.txt'))).rejects.toThrow(/absolute paths are not allowed/);
  });

  it.each(['../outside/secret.txt', 'sub/../../outside/secret.txt', '..', 'sub/..', 'sub\\..\\..\\outside\\secret.txt'])(
    'refuses ".." in %s',
    async (p) => {
      await expect(read(p)).rejects.toThrow('refused: ".." is not allowed in paths');
    },
  );

  it('refuses symlinks that resolve outside the root', async () => {
    expect(readFileSync(path.join(root, 'escape.txt'), 'utf8')).toBe('TOP SECRET'); // the link itself works
    await expect(read('escape.txt')).rejects.toThrow(/resolves outside the workspace root/);
    await expect(read('escape-dir/secret.txt')).rejects.toThrow(/resolves outside the workspace root/);
    await expect(read('abs-link')).rejects.toThrow(/resolves outside|not found/);
  });

  it('refuses directories and non-regular files (a FIFO does not block)', async () => {
    await expect(read('sub')).rejects.toThrow(/is a directory/);
    await expect(read('.')).rejects.toThrow(/is a directory/);
    await expect(read('pipe')).rejects.toThrow(/not a regular file/);
  });

  it('truncates a file above the size limit with a note', async () => {
    const out = await read('big.txt');
    expect(out.startsWith('a'.repeat(256 * 1024))).toBe(true);
    expect(out).toMatch(/\[truncated: "big.txt" is 307200 bytes; only the first 262144 bytes are shown\]$/);
    expect(out.length).toBeLessThan(256 * 1024 + 200);
  });

  it('cuts a truncated multi-byte file on a character boundary', async () => {
    const out = await read('korean.txt', 100); // 100 bytes = 33 characters + 1 byte
    expect(out.startsWith(`${'가'.repeat(33)}\n`)).toBe(true);
    expect(out).not.toContain('\uFFFD');
    expect(out).toContain('only the first 99 bytes are shown');
  });

  it('refuses binary and non-UTF-8 files', async () => {
    await expect(read('image.bin')).rejects.toThrow(/binary file/);
    await expect(read('latin1.txt')).rejects.toThrow(/not UTF-8 text/);
  });

  it('reports a missing file and empty input as ToolErrors', async () => {
    await expect(read('nope.txt')).rejects.toThrow('file not found: "nope.txt"');
    await expect(read('hello.txt/x')).rejects.toThrow(/file not found/);
    await expect(read('  ')).rejects.toBeInstanceOf(ToolError);
    await expect(read('a\0b')).rejects.toThrow(/NUL/);
  });

  it('is unavailable without a configured root, or when the root is not a directory', () => {
    expect(readFileAvailability({})).toEqual({ available: false, reason: 'no read_file root directory configured' });
    expect(readFileAvailability({ root: path.join(base, 'missing') }).available).toBe(false);
    expect(readFileAvailability({ root: path.join(root, 'hello.txt') }).available).toBe(false);
    expect(readFileAvailability({ root })).toEqual({ available: true });
  });
});
