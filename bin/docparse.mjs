#!/usr/bin/env node
// The `docparse` command (package.json "bin"): runs bin/cli.ts through tsx, so that it works
// from a clone after `npm ci`, and as a global command after `npm link` or `npm install -g .`.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('./cli.ts');
