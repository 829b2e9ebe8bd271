import type { StreamEvent } from './api.js';
import { h } from './dom.js';
import { formatMs, formatScore } from './format.js';

/** The stages a page goes through, in order: one segment of its bar each. */
export const STAGES = ['queued', 'classified', 'routed', 'done'] as const;
export type Stage = (typeof STAGES)[number];

/** The elements of the progress panel (see index.html). */
export interface ProgressElements {
  panel: HTMLElement;
  status: HTMLElement;
  bar: HTMLElement;
  fill: HTMLElement;
  pages: HTMLOListElement;
  log: HTMLOListElement;
  logCount: HTMLElement;
}

interface PageRow {
  element: HTMLLIElement;
  detail: HTMLElement;
  stage: Stage;
  tier?: string;
  provider?: string;
}

/**
 * The live view of a parse's events: an overall bar, one row per page whose four segments fill as
 * the page is queued, classified (`classify.page`, with its complexity), routed (`route.page`,
 * tier and provider) and done (`vlm.page.done`, confidence), and the event log. Each row carries
 * `data-stage` with its stage, for styles and tests.
 */
export class ProgressView {
  private readonly rows = new Map<number, PageRow>();
  private startedAt = 0;
  private pageCount = 0;
  private ended = false;
  private readonly elements: ProgressElements;

  constructor(elements: ProgressElements) {
    this.elements = elements;
  }

  /** Clears the panel for a new parse of `fileName`. */
  start(fileName: string): void {
    const { panel, pages, log } = this.elements;
    this.rows.clear();
    this.pageCount = 0;
    this.ended = false;
    this.startedAt = performance.now();
    pages.replaceChildren();
    log.replaceChildren();
    panel.hidden = false;
    panel.dataset.state = 'running';
    this.setStatus(`Uploading ${fileName}…`);
    this.setOverall(0);
    this.updateCount();
  }

  /** Hides the panel (a request refused before its parse started has no progress to show). */
  hide(): void {
    this.ended = true;
    this.elements.panel.hidden = true;
  }

  /** Shows one event: logs it and moves its page on. */
  handle(event: StreamEvent): void {
    this.logEvent(event);
    const page = typeof event.page === 'number' ? event.page : undefined;
    switch (event.event) {
      case 'ingest.start': {
        const count = typeof event.page_count === 'number' ? event.page_count : 0;
        this.pageCount = count;
        for (let n = 1; n <= count; n++) this.row(n);
        this.setStatus(`${String(count)} ${count === 1 ? 'page' : 'pages'} to parse: classifying…`);
        break;
      }
      case 'classify.page':
        if (page !== undefined) {
          const complexity = typeof event.complexity === 'number' ? event.complexity : null;
          this.advance(
            page,
            'classified',
            complexity === null ? 'classified' : `complexity ${formatScore(complexity)}`,
          );
        }
        break;
      case 'route.page':
        if (page !== undefined) {
          const row = this.row(page);
          row.tier = typeof event.tier === 'string' ? event.tier : undefined;
          row.provider = typeof event.provider === 'string' ? event.provider : undefined;
          this.advance(page, 'routed', routeText(row));
          this.setStatus('Parsing pages…');
        }
        break;
      case 'vlm.page.done':
        if (page !== undefined) {
          const row = this.row(page);
          const confidence = typeof event.confidence === 'number' ? event.confidence : null;
          const done = confidence === null ? 'done' : `confidence ${formatScore(confidence)}`;
          this.advance(page, 'done', [routeText(row), done].filter(Boolean).join(' · '));
          const finished = [...this.rows.values()].filter((r) => r.stage === 'done').length;
          this.setStatus(`${String(finished)} of ${String(this.total())} pages parsed`);
        }
        break;
      case 'error':
        this.setStatus(`Failed: ${typeof event.detail === 'string' ? event.detail : 'error'}`);
        break;
      default:
        break;
    }
  }

  /** Ends the run: `done` fills the bar, `failed` and `cancelled` keep it where it stopped. */
  finish(outcome: 'done' | 'failed' | 'cancelled', message: string): void {
    if (this.ended) return;
    this.ended = true;
    const elapsed = formatMs(performance.now() - this.startedAt);
    this.elements.panel.dataset.state = outcome;
    if (outcome === 'done') this.setOverall(100);
    this.setStatus(`${message} (${elapsed})`);
  }

  private total(): number {
    return Math.max(this.pageCount, this.rows.size);
  }

  private row(page: number): PageRow {
    let row = this.rows.get(page);
    if (row) return row;
    const detail = h('span', { class: 'page-detail' }, 'queued');
    const segments = STAGES.map((stage) => h('span', { class: 'segment', title: stage }));
    const element = h(
      'li',
      { class: 'page-row', 'data-page': page, 'data-stage': 'queued' },
      h('span', { class: 'page-name' }, `Page ${String(page)}`),
      h('span', { class: 'segments', 'aria-hidden': 'true' }, ...segments),
      detail,
    );
    row = { element, detail, stage: 'queued' };
    this.rows.set(page, row);
    // Rows stay in page order whatever order the events come in.
    const next = [...this.rows.keys()].filter((n) => n > page).sort((a, b) => a - b)[0];
    this.elements.pages.insertBefore(
      element,
      next === undefined ? null : (this.rows.get(next)?.element ?? null),
    );
    return row;
  }

  private advance(page: number, stage: Stage, text: string): void {
    const row = this.row(page);
    if (STAGES.indexOf(stage) < STAGES.indexOf(row.stage)) return;
    row.stage = stage;
    row.element.dataset.stage = stage;
    row.detail.textContent = text;
    row.element.setAttribute('aria-label', `Page ${String(page)}: ${stage}, ${text}`);
    const steps = [...this.rows.values()].reduce((sum, r) => sum + STAGES.indexOf(r.stage), 0);
    const total = this.total() * (STAGES.length - 1);
    // Ingestion counts for the first 5 %, the pages' stages for the rest.
    this.setOverall(total === 0 ? 5 : 5 + (95 * steps) / total);
  }

  private setOverall(percent: number): void {
    const value = Math.max(0, Math.min(100, Math.round(percent)));
    this.elements.bar.setAttribute('aria-valuenow', String(value));
    this.elements.fill.style.width = `${String(value)}%`;
  }

  private setStatus(text: string): void {
    this.elements.status.textContent = text;
  }

  private logEvent(event: StreamEvent): void {
    const elapsed = Math.round(performance.now() - this.startedAt);
    this.elements.log.append(
      h(
        'li',
        { 'data-event': event.event },
        h('span', { class: 'log-time' }, `+${formatMs(elapsed)}`),
        h('span', { class: 'log-name' }, event.event),
        h('span', { class: 'log-fields' }, fieldsText(event)),
      ),
    );
    this.updateCount();
  }

  private updateCount(): void {
    this.elements.logCount.textContent = String(this.elements.log.childElementCount);
  }
}

function routeText(row: PageRow): string {
  return [row.tier, row.provider].filter((part) => part !== undefined).join(' · ');
}

/** The fields of an event in one line; the final payload is summarised. */
function fieldsText(event: StreamEvent): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === 'event') continue;
    if (key === 'payload') {
      const pages =
        typeof value === 'object' &&
        value !== null &&
        'pages' in value &&
        Array.isArray(value.pages)
          ? value.pages.length
          : null;
      parts.push(pages === null ? 'payload' : `payload: ${String(pages)} pages`);
      continue;
    }
    parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return parts.join(' ');
}
