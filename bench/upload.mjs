#!/usr/bin/env node
// Uploads one file to a running service and maps the HTTP outcome to an exit status for
// ../shared/bench/hostile-check.mjs: 200 → 0, 4xx → 1 (a clean refusal), 5xx or no answer → 134
// (reported as a crash: the service must never fail that way).
//
//   node bench/upload.mjs <base-url> <api-key> <file>
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [url, key, file] = process.argv.slice(2);
if (!url || !key || !file) {
  console.error('usage: node bench/upload.mjs <base-url> <api-key> <file>');
  process.exit(2);
}
try {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const res = await fetch(`${url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  const body = await res.text();
  console.log(`${res.status} ${body.slice(0, 200)}`);
  process.exit(res.status === 200 ? 0 : res.status >= 400 && res.status < 500 ? 1 : 134);
} catch (error) {
  console.log(`no answer: ${String(error)}`);
  process.exit(134);
}
