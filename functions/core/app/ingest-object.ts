import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError, ConflictError, isRefusal, ObjectNotFoundError } from '../domain/errors.js';
import { DEFAULT_PARSE_OPTIONS, type RequestRecord } from '../domain/request.js';
import { utcDay } from '../domain/page-quota.js';
import type { Plan } from '../domain/request.js';
import { isTenantId } from '../domain/tenant.js';
import { tenantPlan } from './api-keys.js';
import type { AppDeps } from './app-deps.js';
import { startParse, submitUpload } from './parse-upload.js';

/** Objects written under this prefix, as `incoming/<tenant>/<name>`, are parsed for `<tenant>`. */
export const INCOMING_PREFIX = 'incoming/';

/**
 * What became of one object event. Only `started` starts an execution; `duplicate` finds the
 * request a previous delivery created (and starts it again only if it never left `queued`, which
 * is the same execution); `dropped` and `ignored` start nothing and should not be retried.
 */
export type IngestOutcome =
  | { status: 'started'; requestId: string; tenant: string; key: string }
  | {
      status: 'duplicate';
      requestId: string;
      tenant: string;
      key: string;
      requestStatus: RequestRecord['status'];
    }
  | { status: 'dropped'; reason: string; key?: string }
  | { status: 'ignored'; reason: string };

/** The message S3 sends once when a notification is configured. */
const S3TestEvent = z.object({ Event: z.literal('s3:TestEvent') });

/** An S3 event notification: one or more records. */
const S3Notification = z.object({ Records: z.array(z.unknown()) });

/** The fields of an S3 event record this service reads. */
const S3EventRecord = z.object({
  eventSource: z.literal('aws:s3'),
  eventName: z.string(),
  s3: z.object({
    bucket: z.object({ name: z.string().min(1) }),
    object: z.object({
      /** URL-encoded, with `+` for spaces. */
      key: z.string().min(1),
      /** Bytes; absent on some event types. */
      size: z.number().int().nonnegative().optional(),
      eTag: z.string().optional(),
      versionId: z.string().optional(),
      /** Orders the events of one key; unique per write. */
      sequencer: z.string().optional(),
    }),
  }),
});
type S3EventRecord = z.infer<typeof S3EventRecord>;

/**
 * Starts a parse for each object an S3 event notification announces under
 * `incoming/<tenant>/<name>` (event-driven ingestion; the message body of the ingestion queue):
 * 1. parses the body: an `s3:TestEvent` is ignored; a body that is not an S3 notification is
 *    dropped; each record is then handled on its own, in order;
 * 2. ignores events other than `ObjectCreated:*`; URL-decodes the key (`+` is a space) and drops
 *    keys not shaped `incoming/<tenant>/<name>` (tenant: letters, digits, `_ . -`, not only dots;
 *    name: no empty, `.` or `..` segment, so folder markers are dropped) and objects the event
 *    says are larger than the upload limit;
 * 3. derives the request id from the bucket, key, version id, ETag and sequencer of the event, so
 *    a redelivered event names the same request; if that request exists, starts nothing new (a
 *    request still `queued` is started again: the same execution, in case the previous delivery
 *    stopped between creating and starting it);
 * 4. looks the tenant up: a tenant exists through its API keys, and works under the highest
 *    plan of those not revoked (`tenantPlan`); an object of an unknown tenant is dropped, and
 *    so is one of a tenant whose daily pages are used up already (the reason names the limit);
 * 5. reads the object (dropped when it no longer exists), submits it for the tenant under that
 *    plan with the default parse options (`submitUpload`: size, emptiness and format checks; a
 *    refused object is dropped with the reason), and starts the parse without waiting for it.
 *    The result is delivered under `results/<tenant>/<id>.json` and `.md`.
 *
 * The parse is metered as an API parse of the tenant is: Ingest counts its pages against the
 * plan's daily pages, refusing a document that does not fit (the request then ends `failed`
 * with the 402 detail in its record, which `GET /v1/parse/{id}` answers), and the deployment's
 * page cap applies.
 * The per-key request rate does not: no key sends these objects. Dropped objects stay where they
 * were written until the bucket's lifecycle rule for `incoming/` deletes them.
 *
 * Outcomes are returned for the caller to log; dropping never throws.
 * @returns one outcome per record (one for a body that is not a notification).
 * @throws the store's or workflow's error for failures worth retrying (the message is then
 *   redelivered; records handled before the failure are found again as `duplicate`).
 */
export async function ingestObjects(deps: AppDeps, body: string): Promise<IngestOutcome[]> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return [{ status: 'dropped', reason: 'the message body is not JSON' }];
  }
  if (S3TestEvent.safeParse(message).success) {
    return [{ status: 'ignored', reason: 's3:TestEvent (sent when the notification is set up)' }];
  }
  const notification = S3Notification.safeParse(message);
  if (!notification.success) {
    return [{ status: 'dropped', reason: 'the message is not an S3 event notification' }];
  }
  const outcomes: IngestOutcome[] = [];
  for (const record of notification.data.Records) outcomes.push(await ingestRecord(deps, record));
  return outcomes;
}

/** Steps 2 to 4 of {@link ingestObjects} for one event record. */
async function ingestRecord(deps: AppDeps, raw: unknown): Promise<IngestOutcome> {
  const parsed = S3EventRecord.safeParse(raw);
  if (!parsed.success) {
    return { status: 'dropped', reason: 'an event record is not an S3 object event' };
  }
  const event = parsed.data;
  if (!event.eventName.startsWith('ObjectCreated:')) {
    return { status: 'ignored', reason: `${event.eventName} events start no parse` };
  }
  const key = decodeKey(event.s3.object.key);
  if (key === undefined) {
    return {
      status: 'dropped',
      reason: `the event's object key is not valid URL encoding: ${event.s3.object.key}`,
    };
  }
  const target = incomingTarget(key);
  if ('reason' in target) return { status: 'dropped', reason: target.reason, key };
  const { tenant, filename } = target;
  const size = event.s3.object.size;
  if (size !== undefined && size > deps.limits.maxUploadBytes) {
    return {
      status: 'dropped',
      reason: `the object is ${size} bytes; the maximum upload size is ${deps.limits.maxUploadBytes} bytes`,
      key,
    };
  }

  const requestId = requestIdFor(event, key);
  const existing = await deps.requests.get(requestId);
  if (existing) return duplicate(deps, existing, key);

  const plan = await tenantPlan(deps.apiKeys, tenant);
  if (plan === undefined) {
    return {
      status: 'dropped',
      reason: `no tenant "${tenant}" exists (it has no API key that is not revoked); objects under ${INCOMING_PREFIX}<tenant>/ are parsed only for tenants with a key`,
      key,
    };
  }
  const full = await dailyPagesUsedUp(deps, tenant, plan);
  if (full) return { status: 'dropped', reason: full, key };

  let bytes: Uint8Array;
  try {
    bytes = await deps.objects.get(key);
  } catch (error) {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    // S3 reads are strongly consistent: the object was deleted after the event.
    return { status: 'dropped', reason: 'the object no longer exists', key };
  }
  let record: RequestRecord;
  try {
    record = await submitUpload(
      deps,
      { tenant, plan, bytes, filename, options: { ...DEFAULT_PARSE_OPTIONS } },
      { requestId },
    );
  } catch (error) {
    if (error instanceof ConflictError) {
      // A concurrent delivery of the same event created it first.
      const winner = await deps.requests.get(requestId);
      if (winner) return duplicate(deps, winner, key);
    }
    if (error instanceof AppError && isRefusal(error.kind)) {
      return { status: 'dropped', reason: error.message, key };
    }
    throw error;
  }
  await startParse(deps, record.id);
  return { status: 'started', requestId: record.id, tenant, key };
}

/**
 * Why the tenant can parse no page today, when its plan's daily pages are all used; undefined
 * otherwise. A document that only partly fits is refused later by Ingest, which knows its pages.
 */
async function dailyPagesUsedUp(
  deps: AppDeps,
  tenant: string,
  plan: Plan,
): Promise<string | undefined> {
  const limit = deps.settings.planLimits[plan].pagesPerDay;
  if (!deps.usage || limit === null) return undefined;
  const day = utcDay(deps.clock.now());
  const used = await deps.usage.pagesUsed(tenant, day);
  if (used < limit) return undefined;
  return `the ${plan} plan of tenant "${tenant}" allows ${limit} pages per day and ${used} are used today (UTC day ${day}); write the object again after UTC midnight`;
}

/** The outcome for an event whose request exists already. */
async function duplicate(
  deps: AppDeps,
  record: RequestRecord,
  key: string,
): Promise<IngestOutcome> {
  // Only a request no stage has touched may have missed its start; starting it is idempotent.
  if (record.status === 'queued') await startParse(deps, record.id);
  return {
    status: 'duplicate',
    requestId: record.id,
    tenant: record.tenant,
    key,
    requestStatus: record.status,
  };
}

/** An S3 event key decoded (`+` is a space, then percent-decoding), or undefined when malformed. */
function decodeKey(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** The tenant and file name of an `incoming/<tenant>/<name>` key, or why it is not one. */
function incomingTarget(key: string): { tenant: string; filename: string } | { reason: string } {
  const shape = `object keys must be ${INCOMING_PREFIX}<tenant>/<name>`;
  if (!key.startsWith(INCOMING_PREFIX)) {
    return { reason: `${shape}; ${key} is outside ${INCOMING_PREFIX}` };
  }
  const [tenant = '', ...name] = key.slice(INCOMING_PREFIX.length).split('/');
  if (!isTenantId(tenant)) {
    return {
      reason: `${shape}; "${tenant}" is not a tenant id (letters, digits, "_", "." and "-", not only dots)`,
    };
  }
  const filename = name.at(-1);
  if (filename === undefined || name.some((s) => s === '' || s === '.' || s === '..')) {
    return {
      reason: `${shape}; ${key} names no file (a folder, or an empty, "." or ".." segment)`,
    };
  }
  return { tenant, filename };
}

/**
 * The request id of an object event: the same for every delivery of the event, different for
 * every write (version id, ETag and sequencer change with each write of a key).
 */
function requestIdFor(event: S3EventRecord, key: string): string {
  const { versionId, eTag, sequencer } = event.s3.object;
  const identity = JSON.stringify([
    event.s3.bucket.name,
    key,
    versionId ?? null,
    eTag ?? null,
    sequencer ?? null,
  ]);
  return `req_${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}
