import { readFileSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(REPO, file), 'utf8');

/** The embed snippet of docs/embedding.md is examples/nest-host, which nest-host-pack.e2e-spec.ts compiles and starts on each Nest. */
describe("docs/embedding.md's embed snippet", () => {
  it.each(['app.module.ts', 'orders.agent.ts'])('quotes examples/nest-host/src/%s exactly', (file) => {
    const quoted = '```ts\n' + read(`examples/nest-host/src/${file}`) + '```\n';
    expect(read('docs/embedding.md').includes(quoted)).toBe(true);
  });

  it('is compiled with the tsconfig.json `nest new --strict` writes', () => {
    const template = read('node_modules/@nestjs/schematics/dist/lib/application/files/ts/tsconfig.json').replace(/<%= strict %>/g, 'true');
    expect(JSON.parse(read('examples/nest-host/tsconfig.json'))).toEqual(JSON.parse(template));
  });
});
