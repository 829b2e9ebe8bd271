/** Where a bench ran: the machine, the runtime, the commit and the reference tools' versions. */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, release, totalmem, type as osType } from 'node:os';
import { ROOT } from './corpus.js';

export interface MachineInfo {
  cpuModel: string;
  /** Logical CPUs of the machine. */
  cores: number;
  /** CPUs this process may use (cgroup and affinity limits applied). */
  availableCores: number;
  /** Total memory, in GiB. */
  memoryGiB: number;
  /** e.g. `Linux 6.8.0`. */
  os: string;
  /** e.g. `v20.20.2`. */
  node: string;
}

export interface SourceInfo {
  /** `git rev-parse --short HEAD`, or null outside a git checkout. */
  commit: string | null;
  /** True when the working tree had uncommitted changes. */
  dirty: boolean;
}

/** First output lines of `pdftotext -v` and `tesseract --version`, null when not installed. */
export interface ToolVersions {
  pdftotext: string | null;
  tesseract: string | null;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    availableCores: availableParallelism(),
    memoryGiB: totalmem() / 1024 ** 3,
    os: `${osType()} ${release()}`,
    node: process.version,
  };
}

export function sourceInfo(): SourceInfo {
  const commit = firstLine('git', ['rev-parse', '--short', 'HEAD']);
  if (commit === null) return { commit: null, dirty: false };
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { commit, dirty: status.status === 0 && status.stdout.trim() !== '' };
}

export function toolVersions(): ToolVersions {
  return {
    pdftotext: firstLine('pdftotext', ['-v']),
    tesseract: firstLine('tesseract', ['--version']),
  };
}

/** The first non-empty line a command prints (stdout, else stderr), or null when it fails. */
function firstLine(command: string, args: string[]): string | null {
  const run = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: 10_000 });
  if (run.error || run.status !== 0) return null;
  const line = `${run.stdout}\n${run.stderr}`.split('\n').find((l) => l.trim() !== '');
  return line?.trim() ?? null;
}
