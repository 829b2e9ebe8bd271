import type { PipelinePorts } from '../ports/pipeline.js';
import type { DocumentFormat } from '../domain/schemas.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { BatchStore } from '../ports/batch-store.js';
import type { Queue } from '../ports/queue.js';
import type { StructureExtractor } from '../ports/structure-extractor.js';
import type { UploadSigner } from '../ports/upload-signer.js';
import type { WebhookSecretStore } from '../ports/webhook-sender.js';
import type { Workflow } from '../ports/workflow.js';

/** Result of sniffing a document's format from its first bytes. */
export type FormatDetection = { format: DocumentFormat } | { format: null; detected: string };

/** What the application services need: the pipeline's ports plus the API-side ones. */
export interface AppDeps extends PipelinePorts {
  apiKeys: ApiKeyStore;
  workflow: Workflow;
  /** Signs direct uploads above the API's request-size limit (POST /v1/uploads). */
  uploads: UploadSigner;
  /**
   * Magic-byte format detection (pure). The file name, when given, only tells Markdown from
   * plain text.
   */
  detectFormat: (bytes: Uint8Array, filename?: string | null) => FormatDetection;
  /** New random id suffix (alphanumeric). */
  newId: () => string;
  limits: { maxUploadBytes: number; pageConcurrency: number };
  /** The tenants' webhook signing secrets. */
  webhookSecrets: WebhookSecretStore;
  /**
   * Where the webhook deliverer puts events after their last failed attempt. Absent where no
   * webhook is delivered (with `webhooks`, the webhook queue of `PipelinePorts`).
   */
  webhookDeadLetters?: Queue;
  /** Batches and their items (POST /v1/parse/batch, GET /v1/batch/{batch_id}). */
  batches: BatchStore;
  /**
   * The batch queue: one message per document of a batch, consumed by the batch item consumer.
   * Absent where no batch is accepted.
   */
  batchItems?: Queue;
  /**
   * Finds tables, equations and figures (POST /v1/parse/structured). Absent where the function
   * ships without the document engines.
   */
  structure?: StructureExtractor;
}
