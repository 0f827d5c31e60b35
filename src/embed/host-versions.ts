import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The host's Nest and TypeORM against the ranges the package supports: its `peerDependencies`, the one list
 * (npm warns from it at install; this check stops a host installed with `--legacy-peer-deps` or `--force`, or
 * one whose lock predates the package, at start, naming the version it found).
 */
const CHECKED = ['@nestjs/common', '@nestjs/core', '@nestjs/typeorm', 'typeorm'];

/** Throws naming each package whose installed version is outside its supported range. */
export function checkHostVersions(versionOf: (name: string) => string | undefined = installedVersion): void {
  const ranges = ownPackage().peerDependencies;
  const wrong = CHECKED.flatMap((name) => {
    const version = versionOf(name);
    return version && !satisfies(version, ranges[name]) ? [`${name} ${version} (supported: ${ranges[name]})`] : [];
  });
  if (wrong.length) throw new Error(`agent-orchestrator does not support this application's ${wrong.join(', ')}`);
}

/** `^a.b.c || ^d.e.f` ranges, as npm reads carets; a prerelease counts as its release. */
export function satisfies(version: string, range: string): boolean {
  const [major, minor, patch] = numbers(version);
  return range.split('||').some((alternative) => {
    const caret = /^\s*\^(\d+\.\d+\.\d+)\s*$/.exec(alternative);
    if (!caret) throw new Error(`unsupported range "${alternative.trim()}" in peerDependencies`);
    const [a, b, c] = numbers(caret[1]);
    if (major !== a) return false;
    if (a === 0) return minor === b && patch >= c;
    return minor > b || (minor === b && patch >= c);
  });
}

function numbers(version: string): [number, number, number] {
  const [major, minor, patch] = version.split('-')[0].split('.').map(Number);
  return [major, minor, patch];
}

function ownPackage(): { peerDependencies: Record<string, string> } {
  // dist/embed or src/embed, two levels below the package root
  return JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
}

/** The version of the copy this package resolves (the host's), read from its package.json; undefined when absent. */
export function installedVersion(name: string): string | undefined {
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    return undefined;
  }
  // the package's root: the directory below the last node_modules/<name> on the entry's path
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = entry.lastIndexOf(marker);
  if (at < 0) return undefined;
  const manifest = path.join(entry.slice(0, at + marker.length), 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
}
