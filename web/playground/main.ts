import {
  ApiError,
  apiUrl,
  cancelParse,
  fetchResult,
  isRecord,
  parseResponseOf,
  streamParse,
  type OperationMode,
} from './api.js';
import { append, byId, h } from './dom.js';
import { formatBytes } from './format.js';
import { pageImagesOf, type PageImages } from './page-images.js';
import { ProgressView } from './progress.js';
import { BoxTooltip, renderResults } from './results.js';

/** localStorage keys of the remembered settings. */
const STORAGE = {
  apiKey: 'docparse.apiKey',
  apiUrl: 'docparse.apiUrl',
  mode: 'docparse.mode',
} as const;

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "title": { "type": "string", "description": "Title of the document" },
    "date": { "type": "string", "format": "date" },
    "total": { "type": "number", "description": "Total amount" }
  }
}`;

const form = byId('parse-form', HTMLFormElement);
const apiKeyInput = byId('api-key', HTMLInputElement);
const toggleKey = byId('toggle-key', HTMLButtonElement);
const apiUrlInput = byId('api-url', HTMLInputElement);
const docsLink = byId('docs-link', HTMLAnchorElement);
const dropZone = byId('drop-zone', HTMLDivElement);
const fileInput = byId('file-input', HTMLInputElement);
const fileName = byId('file-name', HTMLSpanElement);
const fileAction = byId('file-action', HTMLSpanElement);
const modeSelect = byId('mode', HTMLSelectElement);
const schemaField = byId('schema-field', HTMLDivElement);
const schemaInput = byId('schema', HTMLTextAreaElement);
const maxPagesInput = byId('max-pages', HTMLInputElement);
const dpiInput = byId('dpi', HTMLInputElement);
const parseButton = byId('parse-button', HTMLButtonElement);
const cancelButton = byId('cancel-button', HTMLButtonElement);
const alertBox = byId('alert', HTMLDivElement);
const emptyState = byId('empty-state', HTMLElement);
const results = byId('results', HTMLDivElement);
const main = byId('main', HTMLElement);

const progress = new ProgressView({
  panel: byId('progress', HTMLElement),
  status: byId('progress-status', HTMLSpanElement),
  bar: byId('overall-bar', HTMLDivElement),
  fill: byId('overall-fill', HTMLDivElement),
  pages: byId('page-progress', HTMLOListElement),
  log: byId('event-list', HTMLOListElement),
  logCount: byId('event-count', HTMLSpanElement),
});
const tooltip = new BoxTooltip(byId('box-tooltip', HTMLDivElement), results);

let selectedFile: File | null = null;
/** The parse in progress, if any. */
interface Run {
  abort: AbortController;
  requestId: string | null;
  /** The stream is open: the parse started. */
  started: boolean;
  cancelled: boolean;
}
let running: Run | null = null;
/** What the shown result holds on to (page images, the lazy loader). */
let shown: { images: PageImages; stop: () => void } | null = null;

function isMode(value: string): value is OperationMode {
  return value === 'ocr' || value === 'extract' || value === 'hybrid';
}

function restoreSettings(): void {
  apiKeyInput.value = localStorage.getItem(STORAGE.apiKey) ?? '';
  apiUrlInput.value = localStorage.getItem(STORAGE.apiUrl) ?? '';
  const mode = localStorage.getItem(STORAGE.mode) ?? 'ocr';
  modeSelect.value = isMode(mode) ? mode : 'ocr';
  schemaInput.value = EXAMPLE_SCHEMA;
  if (apiUrlInput.value !== '') apiUrlInput.closest('details')?.setAttribute('open', '');
  updateMode();
  updateDocsLink();
}

function updateMode(): void {
  schemaField.hidden = modeSelect.value === 'ocr';
}

function updateDocsLink(): void {
  docsLink.href = apiUrl(apiUrlInput.value, '/docs');
}

function selectFile(file: File | null): void {
  selectedFile = file;
  dropZone.classList.toggle('has-file', file !== null);
  fileName.textContent = file ? file.name : 'Drop a document here';
  fileName.title = file ? file.name : '';
  fileAction.replaceChildren();
  append(fileAction, [
    file ? `${formatBytes(file.size)} · ` : 'or ',
    h('u', {}, file ? 'change' : 'choose a file'),
  ]);
}

function showError(title: string, message: string, issues: readonly string[] = [], hint?: string) {
  alertBox.replaceChildren();
  append(alertBox, [
    h('strong', { class: 'alert-title' }, title),
    h('p', {}, message),
    issues.length > 0
      ? h('ul', {}, ...issues.map((issue) => h('li', {}, h('code', {}, issue))))
      : null,
    hint ? h('p', { class: 'alert-hint' }, hint) : null,
  ]);
  alertBox.hidden = false;
  delete alertBox.dataset.tone;
}

function hideError(): void {
  alertBox.hidden = true;
  alertBox.replaceChildren();
}

function showApiError(error: ApiError): void {
  const heading = error.status > 0 ? `${String(error.status)} · ${error.title}` : error.title;
  showError(heading, error.message, error.issues, error.hint ?? undefined);
}

function setRunning(on: boolean): void {
  parseButton.disabled = on;
  parseButton.textContent = on ? 'Parsing…' : 'Parse document';
  cancelButton.hidden = !on;
  form.setAttribute('aria-busy', String(on));
}

function clearResult(): void {
  tooltip.hide();
  shown?.stop();
  shown?.images.dispose();
  shown = null;
  results.replaceChildren();
  results.className = 'results';
}

/** Checks the form, then parses the selected document and shows its events and result. */
async function parse(): Promise<void> {
  hideError();
  const apiKey = apiKeyInput.value.trim();
  const file = selectedFile;
  const mode = modeSelect.value;
  if (apiKey === '') {
    showError('API key missing', 'Paste an API key first.', [], 'npm start prints a demo key.');
    apiKeyInput.focus();
    return;
  }
  if (!file) {
    showError('No document', 'Drop a document or choose a file first.');
    return;
  }
  if (!isMode(mode)) return;
  if (mode !== 'ocr') {
    try {
      const schema: unknown = JSON.parse(schemaInput.value);
      if (!isRecord(schema)) throw new Error('the schema must be a JSON object');
    } catch (error) {
      showError(
        'Invalid extraction schema',
        `The schema is not a JSON object: ${error instanceof Error ? error.message : String(error)}`,
      );
      schemaInput.focus();
      return;
    }
  }
  localStorage.setItem(STORAGE.apiKey, apiKey);
  localStorage.setItem(STORAGE.apiUrl, apiUrlInput.value.trim());
  localStorage.setItem(STORAGE.mode, mode);

  clearResult();
  emptyState.hidden = true;
  const run: Run = {
    abort: new AbortController(),
    requestId: null,
    started: false,
    cancelled: false,
  };
  running = run;
  setRunning(true);
  progress.start(file.name);
  let final: unknown;
  let failure: string | null = null;
  try {
    await streamParse(
      {
        base: apiUrlInput.value,
        apiKey,
        file,
        mode,
        schema: schemaInput.value,
        maxPages: maxPagesInput.value,
        dpi: dpiInput.value,
        signal: run.abort.signal,
      },
      (requestId) => {
        run.started = true;
        run.requestId = requestId;
      },
      (event) => {
        progress.handle(event);
        if (event.event === 'error') {
          failure = typeof event.detail === 'string' ? event.detail : 'the parse failed';
        }
        if (event.event === 'result.final') final = event.payload;
      },
    );
    if (final === undefined && run.requestId !== null) {
      // The stream ended without its last event: the stored result says how the parse ended.
      final = await fetchResult(apiUrlInput.value, apiKey, run.requestId);
    }
    show(final, failure, file, mode, run.cancelled);
  } catch (error) {
    if (run.abort.signal.aborted) {
      progress.finish('cancelled', 'Stopped');
      showError('Stopped', 'The page stopped reading the parse’s events.');
      alertBox.dataset.tone = 'info';
    } else if (error instanceof ApiError) {
      if (run.started) progress.finish('failed', error.title);
      else progress.hide();
      showApiError(error);
    } else {
      progress.finish('failed', 'Failed');
      showError('Unexpected error', error instanceof Error ? error.message : String(error));
    }
    if (results.childElementCount === 0) emptyState.hidden = false;
  } finally {
    if (running === run) running = null;
    setRunning(false);
  }
}

function show(
  final: unknown,
  failure: string | null,
  file: File,
  mode: OperationMode,
  cancelled: boolean,
): void {
  const response = parseResponseOf(final);
  const status = isRecord(final) && typeof final.status === 'string' ? final.status : null;
  if (!response || response.status !== 'completed') {
    const detail =
      failure ??
      (isRecord(final) && typeof final.detail === 'string' ? final.detail : 'no result arrived');
    if (cancelled || status === 'cancelled') {
      progress.finish('cancelled', 'Cancelled');
      showError('Parse cancelled', detail);
      alertBox.dataset.tone = 'info';
    } else if (failure === null && status !== null && status !== 'failed') {
      // The stream ended early and the stored request is still running.
      progress.finish('failed', 'Stream ended early');
      showError(
        'Result not ready',
        `The event stream ended while the parse was ${status}.`,
        [],
        'Its result can be read with GET /v1/parse/{id} once it completes.',
      );
    } else {
      progress.finish('failed', 'Failed');
      showError('Parse failed', detail);
    }
    return;
  }
  const count = response.pages.length;
  progress.finish('done', `Parsed ${String(count)} ${count === 1 ? 'page' : 'pages'}`);
  const images = pageImagesOf(file, response.document.format);
  const stop = renderResults(results, response, { images, tooltip, mode });
  shown = { images, stop };
}

async function cancel(): Promise<void> {
  const run = running;
  if (!run) return;
  run.cancelled = true;
  cancelButton.disabled = true;
  try {
    if (run.requestId === null) run.abort.abort();
    else await cancelParse(apiUrlInput.value, apiKeyInput.value.trim(), run.requestId);
  } catch {
    // Already over (404) or unreachable: stop reading the stream.
    run.abort.abort();
  } finally {
    cancelButton.disabled = false;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void parse();
});
cancelButton.addEventListener('click', () => {
  void cancel();
});
toggleKey.addEventListener('click', () => {
  const show = apiKeyInput.type === 'password';
  apiKeyInput.type = show ? 'text' : 'password';
  toggleKey.textContent = show ? 'Hide' : 'Show';
  toggleKey.setAttribute('aria-pressed', String(show));
});
apiUrlInput.addEventListener('input', updateDocsLink);
modeSelect.addEventListener('change', updateMode);
fileInput.addEventListener('change', () => {
  selectFile(fileInput.files?.[0] ?? null);
});
dropZone.addEventListener('dragover', (event) => {
  event.preventDefault();
  if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  dropZone.classList.add('dragging');
});
dropZone.addEventListener('dragleave', (event) => {
  if (event.relatedTarget instanceof Node && dropZone.contains(event.relatedTarget)) return;
  dropZone.classList.remove('dragging');
});
dropZone.addEventListener('drop', (event) => {
  event.preventDefault();
  dropZone.classList.remove('dragging');
  const file = event.dataTransfer?.files[0];
  if (file) selectFile(file);
});
// A file dropped next to the zone must not replace the page.
window.addEventListener('dragover', (event) => {
  event.preventDefault();
});
window.addEventListener('drop', (event) => {
  event.preventDefault();
});
main.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') tooltip.hide();
});

restoreSettings();
document.documentElement.dataset.ready = 'true';
