import { z } from 'zod';
import { BatchPriority } from '../core/domain/batch.js';
import {
  BatchItemStatus,
  BatchStatusResponse,
  DocumentMetadata,
  ExtractionValidationError,
  ParseResponse,
  ProviderStatus,
} from '../core/domain/schemas.js';

/*
 * Response bodies of the API that are views of the service (status while processing, receipts,
 * upload slots, secrets) rather than domain results. The domain results (ParseResponse,
 * EstimateResult, ...) live in core/domain/schemas.ts. Both are documented by openapi.ts.
 */

/** One delivery attempt of a webhook event: its number, when, and the receiver's answer. */
export const WebhookAttempt = z.object({
  attempt: z.number().int().min(1),
  at: z.iso.datetime(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().min(0),
});

/** A request's or batch's webhook as GET shows it (extension): where, delivery status, attempts. */
export const WebhookDeliveryView = z.object({
  url: z.string(),
  status: z.string(),
  attempts: z.array(WebhookAttempt),
});

/**
 * A parse without a stored result (yet): the ParseResponse shape with its `status` (`queued`,
 * `processing`, `failed`, `cancelled`), no pages, and `detail` when it failed. Answered by
 * GET /v1/parse/{request_id} while the parse runs, and with 202 by POST /v1/parse with a
 * `webhook_url`.
 */
export const ParseStatusView = z.object({
  id: z.string().regex(/^req_[A-Za-z0-9]+$/),
  status: z.enum(['queued', 'processing', 'completed', 'failed', 'cancelled']),
  document: DocumentMetadata.partial({ hash: true }),
  pages: z.array(z.unknown()).max(0),
  extracted: z.null(),
  document_type: z.null(),
  created_at: z.iso.datetime(),
  errors: z.array(z.unknown()),
  detail: z.string().optional(),
  webhook: WebhookDeliveryView.optional(),
});

/** A stored result or, while the parse runs or after it failed, its status. */
export const ParseResultOrStatus = z.union([ParseResponse, ParseStatusView]);

/** 422 of a synchronous parse with `extraction_strict=true` whose extraction fails its schema. */
export const ExtractionFailureList = z.array(
  z.object({ extraction_validation: ExtractionValidationError }),
);

/** 201 of POST /v1/uploads: where and how to send the file. */
export const UploadSlot = z.object({
  upload_id: z.string().regex(/^upl_[A-Za-z0-9]+$/),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
  max_bytes: z.number().int().positive(),
  expires_at: z.iso.datetime(),
});

/** 202 of POST /v1/parse/{request_id}/cancel. */
export const CancelReceipt = z.object({
  request_id: z.string(),
  status: z.literal('cancelled'),
  detail: z.string(),
});

/** 200 of GET /v1/providers. */
export const ProviderList = z.object({ providers: z.array(ProviderStatus) });

/** 200 of GET /v1/webhooks/secret. */
export const WebhookSecret = z.object({
  secret: z.string().regex(/^whsec_/),
  signature_scheme: z.literal('standard-webhooks-v1'),
});

/** 200 of GET /v1/live. */
export const LiveStatus = z.object({ status: z.literal('live') });

/** GET /v1/batch/{batch_id}, with the fields the service adds to the spec's batch status. */
export const BatchView = BatchStatusResponse.extend({
  priority: BatchPriority,
  created_at: z.iso.datetime(),
  ended_at: z.iso.datetime().optional(),
  item_count: z.number().int().min(1),
  completed_documents: z.number().int().min(0),
  total_documents: z.number().int().min(1),
  items: z.array(
    BatchItemStatus.extend({
      error: z.object({ kind: z.string(), detail: z.string() }).optional(),
    }),
  ),
  webhook: WebhookDeliveryView.optional(),
});
