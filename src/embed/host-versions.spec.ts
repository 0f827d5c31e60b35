import { checkHostVersions, installedVersion, satisfies } from './host-versions';

describe('host versions', () => {
  it('reads caret ranges as npm does', () => {
    const nest = '^10.0.0 || ^11.0.0';
    expect(satisfies('10.4.22', nest)).toBe(true);
    expect(satisfies('11.1.3', nest)).toBe(true);
    expect(satisfies('9.4.3', nest)).toBe(false);
    expect(satisfies('12.0.0', nest)).toBe(false);
    const typeorm = '^0.3.20 || ^1.0.0';
    expect(satisfies('0.3.31', typeorm)).toBe(true);
    expect(satisfies('0.3.19', typeorm)).toBe(false);
    expect(satisfies('0.2.45', typeorm)).toBe(false);
    expect(satisfies('1.1.0-nightly.20260831', typeorm)).toBe(true);
    expect(() => satisfies('1.0.0', '>=1')).toThrow(/unsupported range ">=1"/);
  });

  it("reads the installed versions (typeorm's exports hide its package.json) and passes on this repository's own", () => {
    expect(installedVersion('@nestjs/core')).toBe((require('@nestjs/core/package.json') as { version: string }).version);
    expect(installedVersion('typeorm')).toMatch(/^\d+\.\d+\.\d+/);
    expect(installedVersion('not-installed-anywhere')).toBeUndefined();
    expect(() => checkHostVersions()).not.toThrow();
  });

  it("stops a host whose Nest or TypeORM is outside the supported range, naming the host's version and the range", () => {
    const host: Record<string, string> = {
      '@nestjs/common': '9.4.3',
      '@nestjs/core': '9.4.3',
      '@nestjs/typeorm': '10.0.2',
      typeorm: '0.2.45',
    };
    expect(() => checkHostVersions((name) => host[name])).toThrow(
      "agent-orchestrator does not support this application's @nestjs/common 9.4.3 (supported: ^10.0.0 || ^11.0.0), " +
        '@nestjs/core 9.4.3 (supported: ^10.0.0 || ^11.0.0), typeorm 0.2.45 (supported: ^0.3.20 || ^1.0.0)',
    );
  });
});
