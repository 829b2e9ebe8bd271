/**
 * The Task states of `statemachine/parse-document.asl.json` and their handler modules (under
 * `functions/pipeline/`): the single source for the CDK definition substitutions (`${<State>Arn}`)
 * and for the local runner's in-process bindings.
 */
export const stages = [
  { state: 'Ingest', entry: 'ingest.handler.ts' },
  { state: 'Classify', entry: 'classify.handler.ts' },
  { state: 'Route', entry: 'route.handler.ts' },
  { state: 'ParsePage', entry: 'parse-page.handler.ts' },
  { state: 'Verify', entry: 'verify.handler.ts' },
  { state: 'Deliver', entry: 'deliver.handler.ts' },
  { state: 'RecordFailure', entry: 'record-failure.handler.ts' },
] as const;

export type StageName = (typeof stages)[number]['state'];

/** Path of the parse state machine definition, relative to the repository root. */
export const PARSE_DOCUMENT_ASL = 'statemachine/parse-document.asl.json';
