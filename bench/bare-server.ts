/**
 * The reference of the API load bench: a bare Node `http` server, in a process of its own like
 * the service, that answers each path with the very response the service gave for it (status,
 * content type and body bytes, read from a JSON file), and 404 elsewhere. What it costs is what
 * HTTP and the network stack cost on this machine; the service's requests/s divided by its own
 * are the share the service keeps of them.
 *
 * Prints `READY {"url":…}` on stdout once listening and serves until its stdin closes (or
 * SIGTERM / SIGINT).
 *
 *   node --import tsx bench/bare-server.ts --replies <file.json>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { READY_PREFIX, type BareReply } from './api-load.js';
import { defineCommand, parseCommandLineOrExit } from './cli.js';

const COMMAND = defineCommand({
  usage: 'node --import tsx bench/bare-server.ts --replies <file.json>',
  summary: 'The bare HTTP server of the API load bench (started by api-load.ts).',
  options: {
    replies: { type: 'string', value: 'file.json', description: 'the responses to replay' },
  },
});
const file = parseCommandLineOrExit(COMMAND).replies;
if (!file) throw new Error(`usage: ${COMMAND.usage}`);

const replies = new Map(
  (JSON.parse(readFileSync(file, 'utf8')) as BareReply[]).map((reply) => [
    reply.path,
    {
      status: reply.status,
      headers: { 'content-type': reply.contentType },
      body: Buffer.from(reply.bodyBase64, 'base64'),
    },
  ]),
);

const server = createServer((req, res) => {
  const reply = replies.get((req.url ?? '/').split('?')[0] ?? '/');
  if (reply === undefined) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"detail":"not found"}');
    return;
  }
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const stop = () => {
  server.close();
  server.closeAllConnections();
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
process.stdout.write(`${READY_PREFIX}${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
process.stdin.resume();
process.stdin.once('end', stop);
process.stdin.once('close', stop);
