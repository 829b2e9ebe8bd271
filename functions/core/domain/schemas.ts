import { z } from 'zod';

/**
 * The resources of the specification (§2) as zod schemas: the single source for the types,
 * response validation and the OpenAPI document. Field names are the specification's.
 */

const unit = z.number().min(0).max(1);
const count = z.number().int().min(0);

export const DocumentFormat = z.enum([
  'pdf',
  'docx',
  'pptx',
  'xlsx',
  'xls',
  'png',
  'jpeg',
  'heic',
  'tiff',
  'webp',
  'html',
  'md',
]);
export type DocumentFormat = z.infer<typeof DocumentFormat>;

export const Tier = z.enum(['fast', 'pro', 'premium']);
export type Tier = z.infer<typeof Tier>;

export const OperationMode = z.enum(['ocr', 'extract', 'hybrid']);
export type OperationMode = z.infer<typeof OperationMode>;

export const QualityGrade = z.enum(['excellent', 'good', 'fair', 'poor']);
export type QualityGrade = z.infer<typeof QualityGrade>;

export const BBoxLabel = z.enum([
  'paragraph',
  'table',
  'figure',
  'header',
  'footer',
  'list',
  'code',
  'formula',
  'handwriting',
]);
export type BBoxLabel = z.infer<typeof BBoxLabel>;

/** Box in pixels of the page image, origin top-left. */
export const BBox = z.object({
  x: z.number().min(0),
  y: z.number().min(0),
  w: z.number().positive(),
  h: z.number().positive(),
  label: BBoxLabel,
  confidence: unit,
});
export type BBox = z.infer<typeof BBox>;

export const GroundingEntry = z.object({
  text: z.string(),
  bbox: BBox,
  element_type: z.string(),
  page_number: z.number().int().min(1),
});
export type GroundingEntry = z.infer<typeof GroundingEntry>;

export const ConfidenceReport = z.object({
  layout_score: unit,
  ocr_score: unit,
  verbatim_score: unit,
  table_score: unit.nullable().optional(),
  mean_grade: QualityGrade,
  low_grade: QualityGrade,
});
export type ConfidenceReport = z.infer<typeof ConfidenceReport>;

export const TokenUsage = z.object({ input_tokens: count, output_tokens: count });
export type TokenUsage = z.infer<typeof TokenUsage>;

export const PostprocessWarning = z.strictObject({
  kind: z.enum([
    'fence_stripped',
    'heading_renumbered',
    'list_normalized',
    'duplicate_region',
    'potential_hallucination',
  ]),
  severity: z.enum(['info', 'warn', 'error']).default('info'),
  page_number: z.number().int().min(1),
  detail: z.string(),
});
export type PostprocessWarning = z.infer<typeof PostprocessWarning>;

/**
 * Extension: the page as parsed by the request's `compare_provider` as well, and how far the two
 * texts agree (1 − normalised edit distance of their plain text, in [0, 1]). `failed` when that
 * provider failed or its circuit was open; the page itself is unaffected.
 */
export const PageComparison = z.object({
  provider_id: z.string(),
  model_id: z.string().nullable(),
  status: z.enum(['completed', 'failed']),
  content_markdown: z.string().nullable(),
  agreement: unit.nullable(),
  tokens: TokenUsage,
  estimated_cost_usd: z.number().min(0),
  latency_ms: count,
  detail: z.string().optional(),
});
export type PageComparison = z.infer<typeof PageComparison>;

export const Page = z.object({
  page_number: z.number().int().min(1),
  content_markdown: z.string(),
  content_json: z.record(z.string(), z.unknown()).nullable(),
  tier_used: Tier,
  provider: z.string(),
  model: z.string(),
  confidence: ConfidenceReport,
  grounding: z.array(GroundingEntry),
  tokens: TokenUsage,
  latency_ms: count,
  re_routed: z.boolean(),
  re_route_result: z.record(z.string(), z.unknown()).nullable(),
  warnings: z.array(PostprocessWarning).optional(),
  /** Extension: the page image the grounding boxes refer to (pixels at `dpi`). */
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  dpi: z.number().int().positive().optional(),
  /** Extension: what this page cost in USD (tier price, provider price, tokens). */
  estimated_cost_usd: z.number().min(0).optional(),
  comparison: PageComparison.optional(),
});
export type Page = z.infer<typeof Page>;

export const DocumentMetadata = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  pages: count,
  format: DocumentFormat,
  cached: z.boolean().default(false),
  filename: z.string().nullable().optional(),
  size_bytes: count.nullable().optional(),
});
export type DocumentMetadata = z.infer<typeof DocumentMetadata>;

export const DocumentTypeReport = z.object({
  detected: z.enum([
    'textbook',
    'academic_paper',
    'slide_deck',
    'invoice_or_form',
    'report_manual',
    'image_or_scan',
    'unknown',
  ]),
  confidence: unit,
  rationale: z.string(),
  suggested_dpi: z.number().int(),
  suggested_enable_verification: z.boolean(),
});
export type DocumentTypeReport = z.infer<typeof DocumentTypeReport>;

export const ExtractionValidationError = z.strictObject({
  pointer: z.string(),
  schema_rule: z.string(),
  message: z.string(),
});
export type ExtractionValidationError = z.infer<typeof ExtractionValidationError>;

export const UsageSummary = z.object({
  total_input_tokens: count,
  total_output_tokens: count,
  estimated_cost_usd: z.number().min(0),
  pages_by_tier: z.record(Tier, count).optional(),
  /** Extension: true when the result came from the result cache (nothing was charged). */
  cached: z.boolean().optional(),
  /** Extension: with `cached`, the request whose parse the result is. */
  cached_from: z.string().optional(),
});
export type UsageSummary = z.infer<typeof UsageSummary>;

export const TimingSummary = z.object({
  total_ms: count,
  classification_ms: count,
  routing_ms: count,
  vlm_processing_ms: count,
  verification_ms: count,
  /** Extension: true when the result came from the result cache (no stage ran). */
  cached: z.boolean().optional(),
});
export type TimingSummary = z.infer<typeof TimingSummary>;

export const ParseResponse = z.looseObject({
  id: z.string().regex(/^req_[A-Za-z0-9]+$/),
  status: z.string(),
  document: DocumentMetadata,
  pages: z.array(Page),
  extracted: z.record(z.string(), z.unknown()).nullable(),
  usage: UsageSummary,
  timing: TimingSummary,
  document_type: DocumentTypeReport.nullable(),
  created_at: z.iso.datetime(),
  errors: z.array(z.object({ extraction_validation: ExtractionValidationError })),
});
export type ParseResponse = z.infer<typeof ParseResponse>;

export const ValidationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});

export const HTTPValidationError = z.object({ detail: z.array(ValidationIssueSchema) });
export type HTTPValidationError = z.infer<typeof HTTPValidationError>;

/** Top-level failure body (spec §7). */
export const ErrorBody = z.object({ detail: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const StructuredTableBlock = z.object({
  type: z.literal('table'),
  table_id: z.string(),
  page: z.number().int().min(1),
  cells: z.array(
    z.object({
      row: count,
      col: count,
      text: z.string(),
      row_span: z.number().int().min(1),
      col_span: z.number().int().min(1),
    }),
  ),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});
export const StructuredEquationBlock = z.object({
  type: z.literal('equation'),
  equation_id: z.string(),
  page: z.number().int().min(1),
  latex: z.string(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});
export const StructuredFigureBlock = z.object({
  type: z.literal('figure'),
  figure_id: z.string(),
  page: z.number().int().min(1),
  caption: z.string(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});
export const StructuredBlock = z.discriminatedUnion('type', [
  StructuredTableBlock,
  StructuredEquationBlock,
  StructuredFigureBlock,
]);
export type StructuredBlock = z.infer<typeof StructuredBlock>;

export const StructuredResult = z.object({
  document: DocumentMetadata,
  blocks: z.array(StructuredBlock),
  warnings: z.array(z.string()),
  usage: UsageSummary,
  timing: TimingSummary,
});
export type StructuredResult = z.infer<typeof StructuredResult>;

export const EstimateResult = z.object({
  page_count: count,
  tier_mix: z.object({ fast: count, pro: count, premium: count }),
  estimated_cost_usd: z.number().min(0),
  doc_type: z.string(),
  applied_preset: z.object({ tier_floor: Tier, return_grounding: z.boolean() }),
  /** Extension: true when a parse would be answered from the result cache (cost 0). */
  cached: z.boolean().optional(),
  /** Extension: with `cached`, the request whose result would answer. */
  cached_from: z.string().optional(),
  /** Extension: with `cached`, why the cost is 0. */
  reason: z.string().optional(),
});
export type EstimateResult = z.infer<typeof EstimateResult>;

export const CircuitBreakerState = z.enum(['CLOSED', 'HALF_OPEN', 'OPEN', 'IDLE']);
export type CircuitBreakerState = z.infer<typeof CircuitBreakerState>;

export const ProviderStatus = z.object({
  provider_id: z.string(),
  /** Beyond the spec: the model the provider runs, as its pages report it (`Page.model`). */
  model_id: z.string(),
  /**
   * Beyond the spec: every model id its pages may report, `model_id` first (the offline text
   * provider also reports `office-convert-1` on office, HTML and Markdown pages); requests may
   * name any of them.
   */
  model_ids: z.array(z.string()),
  circuit_breaker_state: CircuitBreakerState,
  healthy: z.boolean(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const HealthResponse = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  version: z.string(),
  uptime_seconds: z.number().min(0),
  providers: z
    .record(z.string(), z.object({ state: CircuitBreakerState, healthy: z.boolean() }))
    .nullable()
    .optional(),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const CompareResult = z.object({
  compare_id: z.string().regex(/^cmp_/),
  filename: z.string(),
  providers_requested: z.array(z.object({ id: z.string(), model: z.string() })),
  runs: z.array(
    z.object({
      provider_id: z.string(),
      model_id: z.string(),
      request_id: z.string(),
      status: z.string(),
      response: ParseResponse.nullable(),
    }),
  ),
});
export type CompareResult = z.infer<typeof CompareResult>;

export const BatchStatus = z.enum(['queued', 'in_progress', 'completed', 'failed']);
export const BatchSubmitResponse = z.object({
  batch_id: z.string().regex(/^batch_/),
  status: BatchStatus,
  item_count: count,
});
/** One document of a batch as its status shows it (`upload_id` for documents sent to a slot). */
export const BatchItemStatus = z.object({
  request_id: z.string().nullable(),
  status: BatchStatus,
  file_url: z.string().nullable(),
  upload_id: z.string().optional(),
});
export const BatchStatusResponse = z.object({
  batch_id: z.string(),
  status: BatchStatus,
  totals: z.object({ queued: count, in_progress: count, completed: count, failed: count }),
  items: z.array(BatchItemStatus),
});
