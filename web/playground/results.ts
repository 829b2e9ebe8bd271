import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { isRecord, type Page, type ParseResponse } from './api.js';
import { append, h, type Child } from './dom.js';
import { formatBytes, formatInteger, formatMs, formatScore, formatUsd } from './format.js';
import type { Frame, PageImages } from './page-images.js';

type GroundingEntry = Page['grounding'][number];

/** The box labels of the specification, in legend order. */
export const BOX_LABELS = [
  'paragraph',
  'header',
  'footer',
  'table',
  'figure',
  'list',
  'code',
  'formula',
  'handwriting',
] as const;

const markdown = new Marked({ gfm: true });

/**
 * Markdown as sanitised HTML: rendered by `marked` (GitHub-flavoured, tables included) and cleaned
 * by DOMPurify (no scripts, event handlers, frames or forms), returned as a fragment so nothing is
 * ever assigned to `innerHTML`. Images other than inline `data:` images (figure references such
 * as `![caption](#figure-1)`, remote images the page may not load) become a labelled placeholder.
 */
export function renderMarkdown(text: string): DocumentFragment {
  const html = markdown.parse(text, { async: false });
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
  });
  for (const image of fragment.querySelectorAll('img')) {
    if (image.getAttribute('src')?.startsWith('data:image/')) continue;
    image.replaceWith(
      h(
        'span',
        { class: 'figure-placeholder', role: 'img', 'aria-label': image.alt || 'figure' },
        image.alt || 'figure',
      ),
    );
  }
  return fragment;
}

/** Shows a hovered or focused grounding box's label, confidence and text. */
export class BoxTooltip {
  private readonly entries = new WeakMap<Element, GroundingEntry>();
  private active: HTMLElement | null = null;
  private readonly tooltip: HTMLElement;

  constructor(tooltip: HTMLElement, root: HTMLElement) {
    this.tooltip = tooltip;
    root.addEventListener('mouseover', (event) => {
      this.show(event.target);
    });
    root.addEventListener('focusin', (event) => {
      this.show(event.target);
    });
    root.addEventListener('mouseout', (event) => {
      if (event.target === this.active) this.hide();
    });
    root.addEventListener('focusout', (event) => {
      if (event.target === this.active) this.hide();
    });
    window.addEventListener('scroll', () => {
      this.hide();
    });
  }

  /** Makes `box` show `entry` when hovered or focused. */
  attach(box: HTMLElement, entry: GroundingEntry): void {
    this.entries.set(box, entry);
  }

  hide(): void {
    this.active?.classList.remove('active');
    this.active = null;
    this.tooltip.hidden = true;
  }

  private show(target: EventTarget | null): void {
    if (!(target instanceof HTMLElement)) return;
    const entry = this.entries.get(target);
    if (!entry) return;
    this.active?.classList.remove('active');
    this.active = target;
    target.classList.add('active');
    const text = entry.text.length > 600 ? `${entry.text.slice(0, 600)}…` : entry.text;
    this.tooltip.replaceChildren(
      h(
        'div',
        { class: 'tooltip-head' },
        h('span', { class: `chip label-${entry.bbox.label}` }, entry.bbox.label),
        h(
          'span',
          { class: 'tooltip-confidence' },
          `confidence ${formatScore(entry.bbox.confidence)}`,
        ),
      ),
      h('p', { class: 'tooltip-text' }, text === '' ? '(no text)' : text),
    );
    this.tooltip.hidden = false;
    const box = target.getBoundingClientRect();
    const tip = this.tooltip.getBoundingClientRect();
    const margin = 8;
    const left = Math.min(Math.max(margin, box.left), window.innerWidth - tip.width - margin);
    const below = box.bottom + margin;
    const top =
      below + tip.height <= window.innerHeight - margin
        ? below
        : Math.max(margin, box.top - tip.height - margin);
    this.tooltip.style.left = `${String(Math.round(left))}px`;
    this.tooltip.style.top = `${String(Math.round(top))}px`;
  }
}

/** What {@link renderResults} needs besides the response. */
export interface ResultContext {
  images: PageImages;
  tooltip: BoxTooltip;
  /** The operation mode the parse was asked for. */
  mode: string;
}

/**
 * Fills `root` with a parse's result: the document summary, the extracted fields and their
 * validation errors (extract and hybrid), the box legend, and one section per page with its
 * facts, its image with the grounding boxes (loaded as it nears the viewport) and its Markdown.
 * Returns a function that stops loading page images.
 */
export function renderResults(
  root: HTMLElement,
  response: ParseResponse,
  context: ResultContext,
): () => void {
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        loaders.get(entry.target)?.();
      }
    },
    { rootMargin: '1500px 0px' },
  );
  const loaders = new WeakMap<Element, () => void>();
  const sections = response.pages.map((page) => {
    const { section, figure, load } = pageSection(page, context);
    if (figure && load) {
      loaders.set(figure, load);
      observer.observe(figure);
    }
    return section;
  });
  root.replaceChildren();
  append(root, [
    summary(response, context.images.kind === 'none' ? null : legend(root, response)),
    extraction(response, context.mode),
    h('div', { class: 'pages' }, ...sections),
  ]);
  return () => {
    observer.disconnect();
  };
}

function summary(response: ParseResponse, boxLegend: HTMLElement | null): HTMLElement {
  const { document: doc, usage, timing } = response;
  const type = response.document_type;
  const tiers = usage.pages_by_tier
    ? Object.entries(usage.pages_by_tier)
        .filter(([, n]) => n > 0)
        .map(([tier, n]) => `${tier} ${String(n)}`)
        .join(' · ')
    : '';
  const stats: [string, Child, string?, string?][] = [
    ['Pages', formatInteger(doc.pages), `${String(response.pages.length)} parsed`],
    ['Total cost', formatUsd(usage.estimated_cost_usd), tiers || undefined],
    [
      'Time',
      formatMs(timing.total_ms),
      `classify ${formatMs(timing.classification_ms)} · parse ${formatMs(timing.vlm_processing_ms)}`,
    ],
    [
      'Tokens',
      `${formatInteger(usage.total_input_tokens)} in / ${formatInteger(usage.total_output_tokens)} out`,
    ],
    [
      'Document type',
      type ? type.detected.replaceAll('_', ' ') : 'unknown',
      type ? `confidence ${formatScore(type.confidence)}` : undefined,
      type?.rationale,
    ],
  ];
  return h(
    'section',
    { class: 'panel summary', 'aria-labelledby': 'summary-title' },
    h(
      'div',
      { class: 'summary-head' },
      h('h2', { id: 'summary-title', class: 'section-title' }, doc.filename ?? 'Document'),
      h(
        'span',
        { class: 'muted' },
        [
          doc.format.toUpperCase(),
          doc.size_bytes != null ? formatBytes(doc.size_bytes) : null,
          doc.cached ? 'cached result' : null,
          'request ',
        ]
          .filter(Boolean)
          .join(' · '),
        h('code', { class: 'request-id', title: 'request id' }, response.id),
      ),
    ),
    h(
      'dl',
      { class: 'stats' },
      ...stats.map(([label, value, note, title]) =>
        h(
          'div',
          { class: 'stat', title },
          h('dt', {}, label),
          h('dd', {}, value, note ? h('small', {}, note) : null),
        ),
      ),
    ),
    boxLegend,
  );
}

function extraction(response: ParseResponse, mode: string): HTMLElement | null {
  if (response.extracted === null && response.errors.length === 0 && mode === 'ocr') return null;
  const info = isRecord(response.extraction) ? response.extraction : null;
  const by = info
    ? [
        info.provider_id,
        info.model_id,
        typeof info.latency_ms === 'number' ? formatMs(info.latency_ms) : null,
      ]
        .filter((part) => typeof part === 'string' && part !== '')
        .join(' · ')
    : '';
  return h(
    'section',
    { class: 'panel extraction', 'aria-labelledby': 'extracted-title' },
    h(
      'div',
      { class: 'summary-head' },
      h('h2', { id: 'extracted-title', class: 'section-title' }, 'Extracted'),
      by ? h('span', { class: 'muted' }, by) : null,
    ),
    h(
      'pre',
      { class: 'json', tabindex: 0, 'aria-label': 'Extracted JSON' },
      h('code', {}, JSON.stringify(response.extracted, null, 2)),
    ),
    response.errors.length > 0
      ? h(
          'div',
          { class: 'validation' },
          h('h3', {}, `Validation errors (${String(response.errors.length)})`),
          h(
            'ul',
            {},
            ...response.errors.map(({ extraction_validation: e }) =>
              h(
                'li',
                {},
                h('code', {}, e.pointer || '/'),
                ` ${e.message} `,
                h('span', { class: 'muted' }, `(${e.schema_rule})`),
              ),
            ),
          ),
        )
      : null,
  );
}

/** The labels found in the document, each a checkbox that shows or hides its boxes. */
function legend(root: HTMLElement, response: ParseResponse): HTMLElement | null {
  const counts = new Map<string, number>();
  for (const page of response.pages) {
    for (const entry of page.grounding) {
      counts.set(entry.bbox.label, (counts.get(entry.bbox.label) ?? 0) + 1);
    }
  }
  if (counts.size === 0) return null;
  const labels = BOX_LABELS.filter((label) => counts.has(label));
  return h(
    'fieldset',
    { class: 'legend' },
    h('legend', {}, 'Grounding boxes'),
    ...labels.map((label) => {
      const input = h('input', { type: 'checkbox', checked: true, 'data-label': label });
      input.addEventListener('change', () => {
        root.classList.toggle(`hide-${label}`, !input.checked);
      });
      return h(
        'label',
        { class: 'legend-item' },
        input,
        h('span', { class: `swatch label-${label}`, 'aria-hidden': 'true' }),
        `${label} `,
        h('span', { class: 'count' }, String(counts.get(label) ?? 0)),
      );
    }),
  );
}

function pageSection(
  page: Page,
  context: ResultContext,
): { section: HTMLElement; figure: HTMLElement | null; load: (() => void) | null } {
  const n = page.page_number;
  const titleId = `page-${String(n)}-title`;
  const score = meanScore(page);
  const c = page.confidence;
  const facts: [string, string][] = [
    [
      'Tokens',
      `${formatInteger(page.tokens.input_tokens)} / ${formatInteger(page.tokens.output_tokens)}`,
    ],
    ['Cost', formatUsd(page.estimated_cost_usd ?? 0)],
    ['Latency', formatMs(page.latency_ms)],
    ['Boxes', formatInteger(page.grounding.length)],
  ];
  const scores: [string, number | null | undefined][] = [
    ['layout', c.layout_score],
    ['ocr', c.ocr_score],
    ['verbatim', c.verbatim_score],
    ['table', c.table_score],
  ];
  const head = h(
    'header',
    { class: 'page-head' },
    h(
      'div',
      { class: 'page-title' },
      h('h3', { id: titleId }, `Page ${String(n)}`),
      h(
        'span',
        {
          class: `grade grade-${c.mean_grade}`,
          title: `mean grade ${c.mean_grade}, lowest dimension ${c.low_grade}`,
        },
        c.mean_grade,
      ),
      h('span', { class: 'score', title: 'mean confidence score' }, formatScore(score)),
      h('span', { class: `tier tier-${page.tier_used}`, title: 'tier' }, page.tier_used),
      h(
        'span',
        { class: 'provider', title: 'provider / model' },
        h('strong', {}, page.provider),
        ` / ${page.model}`,
      ),
      page.re_routed ? h('span', { class: 'badge' }, 're-routed') : null,
    ),
    h(
      'dl',
      { class: 'facts' },
      ...facts.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
    ),
  );
  const scoreList = h(
    'ul',
    { class: 'scores', 'aria-label': 'Confidence scores' },
    ...scores
      .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
      .map(([label, value]) =>
        h(
          'li',
          {},
          h('span', { class: 'score-name' }, label),
          meter(value),
          h('span', { class: 'score-value' }, formatScore(value)),
        ),
      ),
    h('li', { class: 'low-grade' }, `lowest: ${c.low_grade}`),
  );
  const warnings =
    page.warnings && page.warnings.length > 0
      ? h(
          'ul',
          { class: 'warnings', 'aria-label': 'Warnings' },
          ...page.warnings.map((w) =>
            h(
              'li',
              { class: `severity-${w.severity}` },
              h('strong', {}, w.kind.replaceAll('_', ' ')),
              ` ${w.detail}`,
            ),
          ),
        )
      : null;

  const { figure, load } = pageFigure(page, context);
  const section = h(
    'section',
    { class: 'panel page', id: `page-${String(n)}`, 'data-page': n, 'aria-labelledby': titleId },
    head,
    scoreList,
    warnings,
    h(
      'div',
      { class: context.images.kind === 'none' ? 'page-body no-image' : 'page-body' },
      figure,
      markdownPane(page, context.mode),
    ),
  );
  return { section, figure: context.images.kind === 'none' ? null : figure, load };
}

function meter(value: number): HTMLElement {
  const fill = h('span', { class: 'meter-fill' });
  fill.style.width = `${String(Math.round(value * 100))}%`;
  return h('span', { class: 'meter', 'aria-hidden': 'true' }, fill);
}

/** Mean of the page's scores, as the service reports in `vlm.page.done`. */
function meanScore(page: Page): number {
  const c = page.confidence;
  const scores = [c.layout_score, c.ocr_score, c.verbatim_score];
  if (c.table_score != null) scores.push(c.table_score);
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

/**
 * The page image with its boxes. The frame (the service's page image size) sets the aspect ratio
 * at once, so the layout does not move when the image arrives; boxes are placed in percent of
 * the frame and follow the displayed size.
 */
function pageFigure(
  page: Page,
  context: ResultContext,
): { figure: HTMLElement; load: (() => void) | null } {
  const { images } = context;
  if (images.kind === 'none') {
    return {
      figure: h('p', { class: 'no-image-note' }, images.note ?? 'No page image.'),
      load: null,
    };
  }
  const frame: Frame | null =
    page.width !== undefined && page.height !== undefined
      ? { width: page.width, height: page.height }
      : null;
  const boxes = h('div', { class: 'boxes' });
  const canvas = h('div', { class: 'page-canvas' }, boxes);
  if (frame) canvas.style.aspectRatio = `${String(frame.width)} / ${String(frame.height)}`;
  const caption = h(
    'figcaption',
    {},
    [
      page.dpi !== undefined ? `${String(page.dpi)} DPI` : null,
      frame ? `${String(frame.width)} × ${String(frame.height)} px` : null,
      `${String(page.grounding.length)} boxes`,
    ]
      .filter(Boolean)
      .join(' · '),
  );
  const figure = h(
    'figure',
    {
      class: 'page-figure',
      'data-state': 'loading',
      'aria-label': `Page ${String(page.page_number)} with its grounding boxes`,
    },
    canvas,
    caption,
  );
  const load = () => {
    images
      .load(page.page_number, frame)
      .then((bitmap) => {
        bitmap.classList.add('page-bitmap');
        if (bitmap instanceof HTMLImageElement) {
          bitmap.alt = `Page ${String(page.page_number)}`;
          bitmap.draggable = false;
        } else {
          bitmap.setAttribute('role', 'img');
          bitmap.setAttribute('aria-label', `Page ${String(page.page_number)}`);
        }
        const size =
          frame ??
          (bitmap instanceof HTMLImageElement
            ? { width: bitmap.naturalWidth, height: bitmap.naturalHeight }
            : { width: bitmap.width, height: bitmap.height });
        if (!frame) canvas.style.aspectRatio = `${String(size.width)} / ${String(size.height)}`;
        canvas.prepend(bitmap);
        drawBoxes(boxes, page.grounding, size, context.tooltip);
        figure.dataset.state = 'ready';
      })
      .catch((error: unknown) => {
        figure.dataset.state = 'unavailable';
        canvas.append(
          h(
            'p',
            { class: 'image-error' },
            `No page image: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      });
  };
  return { figure, load };
}

function drawBoxes(
  layer: HTMLElement,
  grounding: readonly GroundingEntry[],
  frame: Frame,
  tooltip: BoxTooltip,
): void {
  const percent = (value: number, of: number) =>
    `${String(Math.min(100, Math.max(0, (value / of) * 100)))}%`;
  for (const entry of grounding) {
    const { x, y, w, h: height, label, confidence } = entry.bbox;
    const x0 = Math.min(Math.max(0, x), frame.width);
    const y0 = Math.min(Math.max(0, y), frame.height);
    const box = h('div', {
      class: `gbox label-${label}`,
      tabindex: 0,
      'data-label': label,
      'aria-label': `${label}, confidence ${formatScore(confidence)}: ${entry.text.slice(0, 120)}`,
    });
    box.style.left = percent(x0, frame.width);
    box.style.top = percent(y0, frame.height);
    box.style.width = percent(Math.min(w, frame.width - x0), frame.width);
    box.style.height = percent(Math.min(height, frame.height - y0), frame.height);
    tooltip.attach(box, entry);
    layer.append(box);
  }
}

/** The page's Markdown, rendered or as source, with a copy button. */
function markdownPane(page: Page, mode: string): HTMLElement {
  if (mode === 'extract' && page.content_markdown === '') {
    return h(
      'div',
      { class: 'markdown-pane' },
      h('p', { class: 'hint' }, 'extract mode returns the fields only: no Markdown for the pages.'),
    );
  }
  const rendered = h('article', { class: 'markdown', 'aria-label': 'Rendered Markdown' });
  rendered.append(renderMarkdown(page.content_markdown));
  const source = h(
    'pre',
    { class: 'markdown-source', hidden: true, tabindex: 0, 'aria-label': 'Markdown source' },
    h('code', {}, page.content_markdown),
  );
  const renderedButton = h(
    'button',
    { type: 'button', class: 'tab', 'aria-pressed': 'true' },
    'Rendered',
  );
  const sourceButton = h(
    'button',
    { type: 'button', class: 'tab', 'aria-pressed': 'false' },
    'Markdown',
  );
  const copyButton = h('button', { type: 'button', class: 'tab copy' }, 'Copy');
  const select = (showSource: boolean) => {
    source.hidden = !showSource;
    rendered.hidden = showSource;
    renderedButton.setAttribute('aria-pressed', String(!showSource));
    sourceButton.setAttribute('aria-pressed', String(showSource));
  };
  renderedButton.addEventListener('click', () => {
    select(false);
  });
  sourceButton.addEventListener('click', () => {
    select(true);
  });
  copyButton.addEventListener('click', () => {
    navigator.clipboard.writeText(page.content_markdown).then(
      () => {
        copyButton.textContent = 'Copied';
        setTimeout(() => (copyButton.textContent = 'Copy'), 1500);
      },
      () => {
        copyButton.textContent = 'Copy failed';
      },
    );
  });
  return h(
    'div',
    { class: 'markdown-pane' },
    h(
      'div',
      { class: 'tabs', role: 'group', 'aria-label': 'Markdown view' },
      renderedButton,
      sourceButton,
      copyButton,
    ),
    rendered,
    source,
  );
}
