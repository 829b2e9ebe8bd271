import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The local service (`bin/local.ts`) running in a child process, as `npm start` runs it. */
export interface ChildService {
  /** The base URL the server printed, e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** Resident set size now, and its peak since the start, in bytes (Linux `/proc`). */
  memory(): { rssBytes: number; peakRssBytes: number };
  /** True while the process has not exited. */
  alive(): boolean;
  /** Stops the server: SIGTERM (a clean shutdown) or SIGKILL; resolves when it has exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/**
 * Starts `bin/local.ts` in its own Node process (tsx as a loader, so that a kill reaches the
 * server itself) with `env` added to this process's environment; `PORT` defaults to 0 (a free
 * port) and `LOG_LEVEL` to `ERROR`. Resolves once the server prints `listening on <url>`.
 * With `shellCommand`, bash runs that command instead (`npm start` as the docs write it), in a
 * process group of its own, which `stop` signals as a whole.
 *
 * @throws Error when the process exits, or prints nothing of the kind within `startTimeoutMs`.
 */
export async function startChildService(
  env: Readonly<Record<string, string>>,
  startTimeoutMs = 90_000,
  shellCommand?: string,
): Promise<ChildService> {
  const options = {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'ERROR', ...env },
    stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
    detached: shellCommand !== undefined,
  };
  const child =
    shellCommand === undefined
      ? spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], options)
      : spawn('bash', ['-c', shellCommand], options);
  const signal = (name: NodeJS.Signals) => {
    if (shellCommand !== undefined && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  };
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(new Error(`the server did not start within ${startTimeoutMs} ms:\n${output}`));
    }, startTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolveUrl(found);
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${signal ?? code}) before listening:\n${output}`));
    });
  });
  const exited = new Promise<void>((done) => {
    child.on('exit', () => {
      done();
    });
  });
  return {
    url,
    child,
    output: () => output,
    memory: () => processMemory(child.pid ?? 0),
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async (name = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) signal(name);
      await exited;
      // npm may exit before the server it started has closed its data directory.
      if (shellCommand !== undefined) await groupGone(child.pid ?? 0);
    },
  };
}

/** Resolves once no process of group `pgid` is left (checked every 100 ms, for 30 s at most). */
async function groupGone(pgid: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** `VmRSS` and `VmHWM` (peak RSS) of process `pid`, in bytes; zeros where `/proc` is absent. */
export function processMemory(pid: number): { rssBytes: number; peakRssBytes: number } {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { rssBytes: 0, peakRssBytes: 0 };
  }
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssBytes: kib('VmRSS') * 1024, peakRssBytes: kib('VmHWM') * 1024 };
}

/**
 * A `PROVIDERS_JSON` whose every tier uses one OpenAI-compatible model (`fake-vision-1`) served
 * at `http://127.0.0.1:<port>/v1`, with a 10 s timeout and no retries: for tests with a fake
 * vision model.
 */
export function fakeVisionProvidersJson(port: number): string {
  return JSON.stringify({
    providers: {
      vision: {
        kind: 'openai-compatible',
        model: 'fake-vision-1',
        base_url: `http://127.0.0.1:${String(port)}/v1`,
        timeout_ms: 10_000,
        max_retries: 0,
      },
    },
    tiers: {
      fast: { providers: ['vision'], price_per_page_usd: 0.001 },
      pro: { providers: ['vision'], price_per_page_usd: 0.01 },
      premium: { providers: ['vision'], price_per_page_usd: 0.03 },
    },
  });
}
