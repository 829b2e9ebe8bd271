/**
 * Time spent by the offline engines per stage, summed over the process's life, for the benches'
 * time profile (`npm run bench:quality` prints it). Recording is a map update per call, cheap
 * enough to stay on in the service.
 */

/** Calls of a stage and the time they took, in milliseconds. */
export interface StageTime {
  calls: number;
  ms: number;
}

const totals = new Map<string, StageTime>();

/** The stage that sums the CPU time the PDF worker threads used on their calls. */
export const PDF_WORKER_CPU = 'pdf worker: CPU of the calls';

/**
 * Adds one call of `stage` that took `ms` milliseconds.
 *
 * @example recordStageTime('pdf worker: page', 12.5)
 */
export const recordStageTime = (stage: string, ms: number): void => {
  const total = totals.get(stage);
  if (total) {
    total.calls++;
    total.ms += ms;
  } else {
    totals.set(stage, { calls: 1, ms });
  }
};

/** A copy of the totals recorded so far, by stage. */
export const stageTimes = (): Map<string, StageTime> =>
  new Map([...totals].map(([stage, t]) => [stage, { ...t }]));

/** Forgets the totals (a bench measures one corpus at a time). */
export const resetStageTimes = (): void => {
  totals.clear();
};
