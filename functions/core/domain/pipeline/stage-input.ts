import { z } from 'zod';

/** Input of the document-level stages (Ingest, Classify, Route, Verify, Deliver). */
export const StageInput = z.object({ requestId: z.string().min(1) });
export type StageInput = z.infer<typeof StageInput>;

/** Input of the ParsePage task, one per item of the ProcessPages map. */
export const PageStageInput = z.object({
  requestId: z.string().min(1),
  pageNumber: z.number().int().positive(),
});
export type PageStageInput = z.infer<typeof PageStageInput>;

/** Input of RecordFailure: the error caught by the state machine (`{ Error, Cause }`). */
export const FailureStageInput = z.object({
  requestId: z.string().min(1),
  failure: z.object({ Error: z.string(), Cause: z.string().optional() }),
});
export type FailureStageInput = z.infer<typeof FailureStageInput>;
