// Bundles the web console (console/src, Preact) into static files the app serves at /console.
// `npm run build` runs it after `nest build` (output: dist/console-ui); the browser tests call buildConsole().
const fs = require('node:fs');
const path = require('node:path');

const esbuild = require('esbuild');

async function buildConsole(outdir) {
  fs.mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [path.join(__dirname, 'src', 'main.tsx')],
    outfile: path.join(outdir, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'app.css']) fs.copyFileSync(path.join(__dirname, file), path.join(outdir, file));
  return outdir;
}

module.exports = { buildConsole };

if (require.main === module) {
  const outdir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist', 'console-ui'));
  buildConsole(outdir).then(
    () => console.log(`console built into ${path.relative(process.cwd(), outdir)}`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
