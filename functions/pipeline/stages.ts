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

/**
 * Task states of the same definition that call an AWS service directly instead of a stage
 * function: `MarkFailed` (DynamoDB UpdateItem on the service table, `${TableName}`) marks the
 * request failed when RecordFailure itself cannot run. The local runner binds them to in-process
 * stand-ins (functions/adapters/local/local-service-tasks.ts).
 */
export const serviceTasks = ['MarkFailed'] as const;

export type StageName = (typeof stages)[number]['state'];

/** Path of the parse state machine definition, relative to the repository root. */
export const PARSE_DOCUMENT_ASL = 'statemachine/parse-document.asl.json';
