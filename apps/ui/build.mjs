// Builds the status page into dist/ui: one minified bundle of JavaScript and
// one of CSS with content hashes in their names (served as immutable), and
// index.html naming them (served with no-cache). Called by scripts/build.mjs.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const here = import.meta.dirname;
const out = resolve(here, '../../dist/ui');
const assets = join(out, 'assets');
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src/main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
writeFileSync(
  join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Flotilla fleet status</title>
<link rel="stylesheet" href="/ui/assets/${style}">
<script type="module" src="/ui/assets/${script}"></script>
</head>
<body><div id="app"></div></body>
</html>
`,
);
const kib = (name) => (result.metafile.outputs[Object.keys(result.metafile.outputs).find((p) => p.endsWith(name))].bytes / 1024).toFixed(1);
console.log(`status page: dist/ui/assets/${script} (${kib(script)} KiB), ${style} (${kib(style)} KiB)`);
