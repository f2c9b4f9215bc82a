// Bundles the extension into dist/extension.js (vscode is provided by the host).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');

await esbuild.build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
});

// vscode-languageclient kills a hung server with this script, found next to its own code.
import { copyFileSync, chmodSync } from 'node:fs';
copyFileSync('node_modules/vscode-languageclient/lib/node/terminateProcess.sh', 'dist/terminateProcess.sh');
chmodSync('dist/terminateProcess.sh', 0o755);
