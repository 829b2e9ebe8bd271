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
import type { ApiKeyRecord, ApiKeyStore } from '../../functions/core/ports/api-key-store.js';
import type { Clock } from '../../functions/core/ports/clock.js';
import type { EventLog, LoggedEvent, ProgressEvent } from '../../functions/core/ports/event-log.js';
import type { ObjectStore } from '../../functions/core/ports/object-store.js';
import type { RequestStore } from '../../functions/core/ports/request-store.js';
import type { WebhookSecretStore } from '../../functions/core/ports/webhook-sender.js';
import type {
  SignedUpload,
  UploadPolicy,
  UploadSigner,
} from '../../functions/core/ports/upload-signer.js';

/** Fields a request patch may never change. */
const IMMUTABLE_FIELDS: ReadonlySet<string> = new Set(['id', 'tenant']);

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

  put(record: ApiKeyRecord): Promise<void> {
    return settle(() => {
      this.#keys.set(record.keyHash, stored(record));
    });
  }

  get(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return settle(() => {
      const record = this.#keys.get(keyHash);
      return record && stored(record);
    });
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
