/**
 * Where the time of a bench run goes: the main thread's CPU time by stage (from V8's sampling
 * profiler, through `node:inspector`), and the engine workers' times the engines record
 * themselves (`functions/engines/stage-timings.ts`).
 *
 * Each CPU sample is charged to the innermost frame of its stack that belongs to a stage (see
 * {@link STAGES}): a layout stage module (`functions/engines/layout/<stage>.ts`), scoring and
 * post-processing, the pipeline, storage, validation, the HTTP API; what calls into a library or
 * into Node is charged to the stage that called it.
 */
import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import type { StageTime } from '../functions/engines/stage-timings.js';

/** Stages by the source of a frame, first match wins (urls are `file://` paths). */
const STAGES: readonly (readonly [RegExp, string | ((m: RegExpExecArray) => string)])[] = [
  [/\/functions\/engines\/layout\/([\w-]+)\.ts$/, (m) => `layout: ${m[1] ?? ''}`],
  [/\/functions\/engines\/pdf\//, 'text-layer provider (main thread)'],
  [/\/functions\/engines\/(ocr|image)\//, 'OCR engine (main thread)'],
  [/\/functions\/engines\/office\//, 'office engine (main thread)'],
  [
    /\/functions\/core\/domain\/(page-scores|confidence|markdown|postprocess|text-similarity)[\w-]*\.ts$/,
    'scoring and post-processing',
  ],
  [/\/node_modules\/(ajv|zod|fast-uri)\//, 'validation (ajv, zod)'],
  [
    /\/node_modules\/(dynalite|classic-level|abstract-level|level[\w-]*|memdown|@aws-sdk|@smithy)\/|\/functions\/adapters\//,
    'storage (dynalite, files, AWS SDK)',
  ],
  [
    /\/node_modules\/aws-local-stepfunctions\/|\/functions\/core\//,
    'pipeline (state machine, stages)',
  ],
  [/\/functions\/(api|local)\/|\/node_modules\/(@middy|busboy|undici)\//, 'HTTP API'],
];

/** Profiler pseudo-frames, by their function name. */
const SPECIAL: Readonly<Record<string, string>> = {
  '(idle)': 'idle (waiting for workers, I/O)',
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 (compiling, other)',
};

const stageOf = (frame: Profiler.ProfileNode['callFrame']): string | undefined => {
  for (const [pattern, name] of STAGES) {
    const m = pattern.exec(frame.url);
    if (m) return typeof name === 'string' ? name : name(m);
  }
  return undefined;
};

/**
 * Milliseconds of CPU samples per stage in `profile`.
 *
 * @example stageCpuTimes(profile).get('layout: tables') // 1234.5
 */
export const stageCpuTimes = (profile: Profiler.Profile): Map<string, number> => {
  const parent = new Map<number, number>();
  const nodes = new Map<number, Profiler.ProfileNode>();
  for (const node of profile.nodes) {
    nodes.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stageOfNode = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    let stage: string | undefined;
    if (node) {
      const name = node.callFrame.functionName;
      stage = Object.hasOwn(SPECIAL, name) ? SPECIAL[name] : stageOf(node.callFrame);
    }
    if (stage === undefined) {
      const up = parent.get(id);
      stage = up === undefined ? 'other (Node, module loading)' : resolve(up);
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  const times = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const stage = resolve(samples[i] ?? 0);
    // A sample's time is the delta to the next one.
    times.set(stage, (times.get(stage) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  }
  return times;
};

/** A running sampling profile of this thread; `stop` ends it. */
export interface CpuProfiling {
  stop(): Promise<Profiler.Profile>;
}

/** Starts V8's sampling profiler on this thread (`intervalUs` between samples). */
export async function startCpuProfile(intervalUs = 1000): Promise<CpuProfiling> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

/** Rows `| stage | ms | share |` of `times`, largest first, shares of `total` milliseconds. */
export const profileRows = (
  times: ReadonlyMap<string, number | StageTime>,
  total: number,
): string[] =>
  [...times]
    .map(([stage, t]) => {
      const ms = typeof t === 'number' ? t : t.ms;
      const calls = typeof t === 'number' ? '' : String(t.calls);
      return { stage, ms, calls };
    })
    .sort((a, b) => b.ms - a.ms)
    .map(
      ({ stage, ms, calls }) =>
        `| ${stage} | ${calls} | ${ms.toFixed(0)} | ${total > 0 ? ((100 * ms) / total).toFixed(1) : '–'}% |`,
    );
