import { posix } from 'node:path';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ObjectNotFoundError,
} from '../../functions/core/domain/errors.js';
import type {
  PageCheckpoint,
  RequestRecord,
  RequestStatus,
} from '../../functions/core/domain/request.js';
import { byCreation, withKeyId } from '../../functions/core/app/api-keys.js';
import type {
  ApiKeyInput,
  ApiKeyRecord,
  ApiKeyStore,
} from '../../functions/core/ports/api-key-store.js';
import type {
  BatchEndStatus,
  BatchItem,
  BatchItemStatus,
  BatchRecord,
  CountMove,
} from '../../functions/core/domain/batch.js';
import type { BatchStore, ItemTransition } from '../../functions/core/ports/batch-store.js';
import type { Clock } from '../../functions/core/ports/clock.js';
import type { EventLog, LoggedEvent, ProgressEvent } from '../../functions/core/ports/event-log.js';
import type { ObjectStore } from '../../functions/core/ports/object-store.js';
import type { RequestStore } from '../../functions/core/ports/request-store.js';
import type { UsageStore } from '../../functions/core/ports/usage-store.js';
import type { WebhookSecretStore } from '../../functions/core/ports/webhook-sender.js';
import type {
  SignedUpload,
  UploadPolicy,
  UploadSigner,
} from '../../functions/core/ports/upload-signer.js';

/** Fields a request patch may never change. */
const IMMUTABLE_FIELDS: ReadonlySet<string> = new Set(['id', 'tenant', 'chargedPages']);

const VIRTUAL_ROOT = '/store';

/** Runs `fn` and settles with its result or its error, as an asynchronous port call would. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(fn());
  });
}

/** A copy without `undefined` fields, as a DynamoDB round trip would give. */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * ObjectStore in memory, with the same key rules as the filesystem store (no key may leave the
 * root).
 */
export class InMemoryObjectStore implements ObjectStore {
  readonly #objects = new Map<string, { body: Uint8Array; contentType: string }>();

  put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    return settle(() => {
      this.#objects.set(normalizeKey(key), { body: body.slice(), contentType });
    });
  }

  get(key: string): Promise<Uint8Array> {
    return settle(() => {
      const object = this.#objects.get(normalizeKey(key));
      if (!object) throw new ObjectNotFoundError(key);
      return object.body.slice();
    });
  }

  exists(key: string): Promise<boolean> {
    return settle(() => this.#objects.has(normalizeKey(key)));
  }

  delete(key: string): Promise<void> {
    return settle(() => {
      this.#objects.delete(normalizeKey(key));
    });
  }

  /** Stored keys, sorted (for assertions). */
  keys(): string[] {
    return [...this.#objects.keys()].sort();
  }

  /** The content type `key` was stored with, or undefined (for assertions). */
  contentTypeOf(key: string): string | undefined {
    return this.#objects.get(normalizeKey(key))?.contentType;
  }
}

function normalizeKey(key: string): string {
  const path = posix.resolve(VIRTUAL_ROOT, key);
  if (key.includes('\0') || !path.startsWith(`${VIRTUAL_ROOT}/`)) {
    throw new BadRequestError(`object key escapes the store root: ${JSON.stringify(key)}`, {
      details: { key },
    });
  }
  return path.slice(VIRTUAL_ROOT.length + 1);
}

/** RequestStore in memory, with the DynamoDB adapter's semantics (copies in and out). */
export class InMemoryRequestStore implements RequestStore {
  readonly #records = new Map<string, RequestRecord>();
  readonly #pages = new Map<string, Map<number, PageCheckpoint>>();

  create(record: RequestRecord): Promise<void> {
    return settle(() => {
      if (this.#records.has(record.id)) {
        throw new ConflictError(`request ${record.id} exists already`, {
          details: { requestId: record.id },
        });
      }
      this.#records.set(record.id, stored(record));
    });
  }

  get(id: string): Promise<RequestRecord | undefined> {
    return settle(() => {
      const record = this.#records.get(id);
      return record && stored(record);
    });
  }

  update(
    id: string,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant'>>,
    expectedStatus?: readonly RequestStatus[],
  ): Promise<RequestRecord> {
    return settle(() => {
      const record = this.#records.get(id);
      if (!record) {
        throw new NotFoundError(`request ${id} does not exist`, { details: { requestId: id } });
      }
      if (expectedStatus && !expectedStatus.includes(record.status)) {
        throw new ConflictError(
          `request ${id} is not in an expected status (${expectedStatus.join(', ') || 'none'})`,
          { details: { requestId: id, expectedStatus: [...expectedStatus] } },
        );
      }
      // Top-level merge; a field patched to `undefined` is removed.
      const changes = (Object.entries(patch) as [string, unknown][]).filter(
        ([name]) => !IMMUTABLE_FIELDS.has(name),
      );
      const changed = new Set(changes.map(([name]) => name));
      const updated = Object.fromEntries([
        ...Object.entries(record).filter(([name]) => !changed.has(name)),
        ...changes.filter(([, value]) => value !== undefined),
      ]);
      const next = stored(updated as unknown as RequestRecord);
      this.#records.set(id, next);
      return stored(next);
    });
  }

  claimRun(
    id: string,
    run: number,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant' | 'runs'>>,
  ): Promise<boolean> {
    return settle(() => {
      const record = this.#records.get(id);
      if (!record) {
        throw new NotFoundError(`request ${id} does not exist`, { details: { requestId: id } });
      }
      if ((record.runs ?? 0) !== run - 1) return false;
      const changes = (Object.entries(patch) as [string, unknown][]).filter(
        ([name]) => !IMMUTABLE_FIELDS.has(name),
      );
      const changed = new Set(changes.map(([name]) => name));
      const updated = Object.fromEntries([
        ...Object.entries(record).filter(([name]) => !changed.has(name)),
        ...changes.filter(([, value]) => value !== undefined),
        ['runs', run],
      ]);
      this.#records.set(id, stored(updated as unknown as RequestRecord));
      return true;
    });
  }

  chargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean> {
    return settle(() => {
      const record = this.#inStatus(id, expectedStatus);
      const charged = record.chargedPages ?? [];
      if (charged.includes(pageNumber)) return false;
      record.chargedPages = [...charged, pageNumber].sort((a, b) => a - b);
      return true;
    });
  }

  unchargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean> {
    return settle(() => {
      const record = this.#records.get(id);
      if (!record) {
        throw new NotFoundError(`request ${id} does not exist`, { details: { requestId: id } });
      }
      const charged = record.chargedPages ?? [];
      if (!expectedStatus.includes(record.status) || !charged.includes(pageNumber)) return false;
      const left = charged.filter((n) => n !== pageNumber);
      if (left.length > 0) record.chargedPages = left;
      else delete record.chargedPages;
      return true;
    });
  }

  /** The stored record (not a copy). @throws NotFoundError, ConflictError as `update` does. */
  #inStatus(id: string, expectedStatus: readonly RequestStatus[]): RequestRecord {
    const record = this.#records.get(id);
    if (!record) {
      throw new NotFoundError(`request ${id} does not exist`, { details: { requestId: id } });
    }
    if (!expectedStatus.includes(record.status)) {
      throw new ConflictError(
        `request ${id} is not in an expected status (${expectedStatus.join(', ') || 'none'})`,
        { details: { requestId: id, expectedStatus: [...expectedStatus] } },
      );
    }
    return record;
  }

  putPage(requestId: string, checkpoint: PageCheckpoint): Promise<void> {
    return settle(() => {
      let pages = this.#pages.get(requestId);
      if (!pages) this.#pages.set(requestId, (pages = new Map<number, PageCheckpoint>()));
      pages.set(checkpoint.pageNumber, stored(checkpoint));
    });
  }

  listPages(requestId: string): Promise<PageCheckpoint[]> {
    return settle(() => {
      const pages = [...(this.#pages.get(requestId)?.values() ?? [])];
      return pages.map(stored).sort((a, b) => a.pageNumber - b.pageNumber);
    });
  }

  deletePages(requestId: string): Promise<void> {
    return settle(() => {
      this.#pages.delete(requestId);
    });
  }
}

/** EventLog in memory; `at` comes from the clock (system time by default). */
export class InMemoryEventLog implements EventLog {
  readonly #logs = new Map<string, LoggedEvent[]>();
  readonly #clock: Clock;

  constructor(clock: Clock = { now: () => new Date() }) {
    this.#clock = clock;
  }

  append(requestId: string, event: ProgressEvent): Promise<number> {
    return settle(() => {
      let log = this.#logs.get(requestId);
      if (!log) this.#logs.set(requestId, (log = []));
      const seq = log.length + 1;
      log.push({ seq, at: this.#clock.now().toISOString(), body: stored(event) });
      return seq;
    });
  }

  opened(): void {
    // Sequence numbers come from the in-memory list; nothing to remember.
  }

  list(requestId: string, afterSeq = 0): Promise<LoggedEvent[]> {
    return settle(() => {
      const log = this.#logs.get(requestId) ?? [];
      return log.filter((event) => event.seq > afterSeq).map(stored);
    });
  }
}

/** ApiKeyStore in memory. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  readonly #keys = new Map<string, ApiKeyRecord>();

  put(input: ApiKeyInput): Promise<void> {
    return settle(() => {
      const record = withKeyId(input);
      const holder = this.#byId(record.keyId);
      if (holder && holder.keyHash !== record.keyHash) {
        throw new ConflictError(`API key id ${record.keyId} is taken by another key`);
      }
      this.#keys.set(record.keyHash, stored(record));
    });
  }

  get(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return settle(() => {
      const record = this.#keys.get(keyHash);
      return record && stored(record);
    });
  }

  getById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return settle(() => {
      const record = this.#byId(keyId);
      return record && stored(record);
    });
  }

  list(tenant?: string): Promise<ApiKeyRecord[]> {
    return settle(() =>
      [...this.#keys.values()]
        .filter((record) => tenant === undefined || record.tenant === tenant)
        .map(stored)
        .sort(byCreation),
    );
  }

  revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    return settle(() => {
      const record = this.#byId(keyId);
      if (!record) return undefined;
      record.revokedAt ??= at.toISOString();
      return stored(record);
    });
  }

  #byId(keyId: string): ApiKeyRecord | undefined {
    return [...this.#keys.values()].find((record) => record.keyId === keyId);
  }
}

/** WebhookSecretStore in memory; new secrets are `whsec_` and a counter in base64. */
export class InMemoryWebhookSecretStore implements WebhookSecretStore {
  readonly #secrets = new Map<string, string>();
  #made = 0;

  get(tenant: string): Promise<string> {
    return settle(() => {
      const secret = this.#secrets.get(tenant);
      if (secret === undefined) throw new NotFoundError(`no webhook secret for tenant ${tenant}`);
      return secret;
    });
  }

  getOrCreate(tenant: string): Promise<string> {
    return settle(() => {
      let secret = this.#secrets.get(tenant);
      if (secret === undefined) {
        this.#made += 1;
        secret = `whsec_${Buffer.from(`secret-${this.#made}`.padEnd(24, '.')).toString('base64')}`;
        this.#secrets.set(tenant, secret);
      }
      return secret;
    });
  }
}

/** UploadSigner that records each policy and answers a form naming it (no real signature). */
export class FakeUploadSigner implements UploadSigner {
  readonly signed: UploadPolicy[] = [];

  sign(policy: UploadPolicy): Promise<SignedUpload> {
    return settle(() => {
      this.signed.push(policy);
      return {
        url: `https://uploads.test/${policy.uploadId}`,
        fields: { key: policy.key, policy: `fake:${policy.uploadId}` },
      };
    });
  }
}

/**
 * UsageStore in memory, with the DynamoDB adapter's semantics; `expiresAt` of every counter is
 * kept for assertions (nothing expires).
 */
export class InMemoryUsageStore implements UsageStore {
  readonly #requests = new Map<string, number>();
  readonly #pages = new Map<string, number>();
  readonly #refunds = new Set<string>();
  /** The latest `expiresAt` written per counter (`rate:<hash>:<minute>`, `pages:<tenant>:<day>`, `refund:<tenant>:<id>`). */
  readonly expiries = new Map<string, Date>();

  consumeRequest(
    keyHash: string,
    windowStart: Date,
    limit: number,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; count: number }> {
    return settle(() => {
      const key = `rate:${keyHash}:${Math.floor(windowStart.getTime() / 60_000)}`;
      const count = this.#requests.get(key) ?? 0;
      if (count >= limit) return { allowed: false, count };
      this.#requests.set(key, count + 1);
      this.expiries.set(key, expiresAt);
      return { allowed: true, count: count + 1 };
    });
  }

  reservePages(
    tenant: string,
    day: string,
    pages: number,
    limit: number | null,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; used: number }> {
    return settle(() => {
      checkPages(pages);
      const key = `pages:${tenant}:${day}`;
      const used = this.#pages.get(key) ?? 0;
      if (limit !== null && used + pages > limit) return { allowed: false, used };
      this.#pages.set(key, used + pages);
      this.expiries.set(key, expiresAt);
      return { allowed: true, used: used + pages };
    });
  }

  refundPages(
    tenant: string,
    day: string,
    pages: number,
    refundId: string,
    expiresAt: Date,
  ): Promise<boolean> {
    return settle(() => {
      checkPages(pages);
      const marker = `refund:${tenant}:${refundId}`;
      if (this.#refunds.has(marker)) return false;
      this.#refunds.add(marker);
      this.expiries.set(marker, expiresAt);
      const key = `pages:${tenant}:${day}`;
      const used = this.#pages.get(key);
      if (used !== undefined) this.#pages.set(key, Math.max(0, used - pages));
      return true;
    });
  }

  pagesUsed(tenant: string, day: string): Promise<number> {
    return settle(() => this.#pages.get(`pages:${tenant}:${day}`) ?? 0);
  }
}

function checkPages(pages: number): void {
  if (!Number.isSafeInteger(pages) || pages < 1) {
    throw new RangeError(`pages must be a positive integer, got ${pages}`);
  }
}

/** BatchStore in memory, with the DynamoDB adapter's semantics (copies in and out, moves once). */
export class InMemoryBatchStore implements BatchStore {
  readonly #batches = new Map<string, { record: BatchRecord; moves: Set<string> }>();
  readonly #items = new Map<string, Map<number, BatchItem>>();

  create(batch: BatchRecord, items: readonly BatchItem[]): Promise<void> {
    return settle(() => {
      if (this.#batches.has(batch.id) || this.#items.has(batch.id)) {
        throw new ConflictError(`batch ${batch.id} exists already`, {
          details: { batchId: batch.id },
        });
      }
      this.#items.set(batch.id, new Map(items.map((item) => [item.index, stored(item)])));
      this.#batches.set(batch.id, { record: stored(batch), moves: new Set() });
    });
  }

  get(batchId: string): Promise<BatchRecord | undefined> {
    return settle(() => {
      const entry = this.#batches.get(batchId);
      return entry && stored(entry.record);
    });
  }

  getItem(batchId: string, index: number): Promise<BatchItem | undefined> {
    return settle(() => {
      const item = this.#items.get(batchId)?.get(index);
      return item && stored(item);
    });
  }

  listItems(batchId: string): Promise<BatchItem[]> {
    return settle(() =>
      [...(this.#items.get(batchId)?.values() ?? [])].map(stored).sort((a, b) => a.index - b.index),
    );
  }

  getWithItems(batchId: string): Promise<{ batch: BatchRecord; items: BatchItem[] } | undefined> {
    return settle(() => {
      const entry = this.#batches.get(batchId);
      if (!entry) return undefined;
      const items = [...(this.#items.get(batchId)?.values() ?? [])];
      return {
        batch: stored(entry.record),
        items: items.map(stored).sort((a, b) => a.index - b.index),
      };
    });
  }

  transitionItem(batchId: string, index: number, change: ItemTransition): Promise<BatchItem> {
    return settle(() => {
      const { requestId: current, ...item } = this.#itemIn(batchId, index, change.from);
      const requestId = change.requestId === undefined ? current : change.requestId;
      const next: BatchItem = {
        ...item,
        status: change.to,
        updatedAt: change.at.toISOString(),
        ...(requestId ? { requestId } : {}),
        ...(change.error === undefined ? {} : { error: change.error }),
      };
      this.#items.get(batchId)?.set(index, stored(next));
      return stored(next);
    });
  }

  applyMove(
    batchId: string,
    move: CountMove,
    at: Date,
  ): Promise<{ applied: boolean; batch: BatchRecord }> {
    return settle(() => {
      const entry = this.#entry(batchId);
      if (entry.moves.has(move.id)) return { applied: false, batch: stored(entry.record) };
      entry.moves.add(move.id);
      const { record } = entry;
      record.totals[move.from] -= 1;
      record.totals[move.to] += 1;
      record.updatedAt = at.toISOString();
      if (move.to === 'in_progress') record.status = 'in_progress';
      return { applied: true, batch: stored(record) };
    });
  }

  finish(batchId: string, status: BatchEndStatus, at: Date): Promise<BatchRecord> {
    return settle(() => {
      const { record } = this.#entry(batchId);
      if (record.status === 'completed' || record.status === 'failed') {
        throw new ConflictError(`batch ${batchId} has ended already (${record.status})`, {
          details: { batchId, status: record.status },
        });
      }
      record.status = status;
      record.endedAt = at.toISOString();
      record.updatedAt = at.toISOString();
      return stored(record);
    });
  }

  update(
    batchId: string,
    patch: Partial<Pick<BatchRecord, 'webhook' | 'webhookEventId'>>,
  ): Promise<BatchRecord> {
    return settle(() => {
      const entry = this.#entry(batchId);
      const defined = Object.fromEntries(
        (Object.entries(patch) as [string, unknown][]).filter(([, value]) => value !== undefined),
      );
      entry.record = stored({ ...entry.record, ...defined });
      return stored(entry.record);
    });
  }

  #entry(batchId: string): { record: BatchRecord; moves: Set<string> } {
    const entry = this.#batches.get(batchId);
    if (!entry) {
      throw new NotFoundError(`batch ${batchId} does not exist`, { details: { batchId } });
    }
    return entry;
  }

  #itemIn(batchId: string, index: number, expected: BatchItemStatus): BatchItem {
    const item = this.#items.get(batchId)?.get(index);
    if (!item) {
      throw new NotFoundError(`item ${index} of batch ${batchId} does not exist`, {
        details: { batchId, index },
      });
    }
    if (item.status !== expected) {
      throw new ConflictError(
        `item ${index} of batch ${batchId} is ${item.status}, not ${expected}`,
        { details: { batchId, index, status: item.status, expected } },
      );
    }
    return item;
  }
}
