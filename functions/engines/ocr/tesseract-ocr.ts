import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Worker as NodeWorker } from 'node:worker_threads';
import { createWorker, type Bbox, type Line, type Page, type Worker } from 'tesseract.js';
import { ProviderUnavailableError } from '../../core/domain/errors.js';
import { WorkerSlot } from '../module-worker.js';
import { splitIntoBands } from './bands.js';
import type { Segment } from '../layout/types.js';
import { findDarkRegions, invertedCrop, rulesInRegion } from './dark-regions.js';
import { paddedCrop, type Region } from './grey-image.js';
import { prepareForOcr, toPgm, type PrepareOptions } from './preprocess.js';
import { eraseRules, findUncoveredInk } from './uncovered.js';
import { otsuThreshold } from './bands.js';
import { CHECK_BOX, checkBoxIn, fitWordBoxes, markCheckBoxes } from './word-boxes.js';

/** A box in pixels of the image given to {@link TesseractOcr.recognize}, origin top-left. */
export interface OcrBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One recognised word. */
export interface OcrWord {
  text: string;
  /** Recogniser confidence in [0, 1]. */
  confidence: number;
  bbox: OcrBox;
  /** Sequence numbers of the word's block, paragraph and line, unique within the page. */
  blockId: number;
  paragraphId: number;
  lineId: number;
  /** Baseline y (pixels from the top) at the word's horizontal centre. */
  baseline: number;
  /**
   * Estimated font size of the word's line in pixels: ascender-to-descender height
   * (tesseract's row height plus descenders), so capitals and descenders fit inside it.
   */
  fontSize: number;
}

/** The words of one image, in tesseract's reading order, and the image's size. */
export interface OcrResult {
  width: number;
  height: number;
  words: OcrWord[];
  /** Factor between the image given and the one recognised (after preprocessing). */
  scale: number;
  /**
   * Vertical rules crossing the dark-background regions (the column separators of a shaded
   * header row, see {@link rulesInRegion}), in pixels of the image given: the region is read
   * inverted, where they vanish, and a rule finder for dark ink on paper does not see them.
   */
  rules: Segment[];
}

/** Options of one {@link TesseractOcr.recognize} call. */
export interface RecognizeOptions {
  /**
   * Resolution of the image in pixels per inch; decides whether it is resampled before OCR.
   * @default 300
   */
  dpi?: number;
}

/** Tesseract page segmentation modes worth using on document pages. */
export type PageSegMode = 'auto' | 'single-column' | 'single-block' | 'sparse';

const PSM_CODE: Record<PageSegMode, string> = {
  auto: '3',
  'single-column': '4',
  'single-block': '6',
  sparse: '11',
};

/** Options of {@link TesseractOcr}. */
export interface TesseractOcrOptions {
  /**
   * Absolute folder holding `eng.traineddata.gz`.
   * @default - `4.0.0_best_int` of the `@tesseract.js-data/eng` package (LSTM, integer weights).
   */
  readonly langPath?: string;
  /**
   * Page segmentation mode.
   * @default 'auto'
   */
  readonly pageSegMode?: PageSegMode;
  /**
   * Extra tesseract parameters (name → value), applied after the defaults.
   * @default {}
   */
  readonly parameters?: Readonly<Record<string, string>>;
  /**
   * Preprocessing options (resampling thresholds, contrast normalisation).
   * @default - OCR between 150 and 200 DPI (resampling outside), no contrast normalisation.
   */
  readonly preprocess?: Omit<PrepareOptions, 'dpi'>;
  /**
   * Number of tesseract workers (each a WebAssembly instance with its own copy of the model,
   * about 60 MB). A page is cut into this many bands at blank gaps and the bands are recognised
   * at the same time, so a single page uses every worker.
   * @default - min(2, available parallelism)
   */
  readonly workers?: number;
  /**
   * A worker that recognised a band of more pixels than this is replaced once the job ends.
   * @default RECYCLE_AFTER_PIXELS (16 Mpx)
   */
  readonly recycleAfterPixels?: number;
  /**
   * How long a worker may stay idle (no band running on it, none waiting for a worker), in
   * milliseconds, before it is terminated to give its memory back (its WebAssembly memory, the
   * model included, never shrinks while it lives); the next call starts a new one (about half a
   * second). `0` or `Infinity`: never. From `ENGINE_IDLE_MS`.
   * @default 60000
   */
  readonly idleMs?: number;
}

/** Parameters set once on the worker. */
const DEFAULT_PARAMETERS: Readonly<Record<string, string>> = {
  // tesseract's progress and diagnostic messages would otherwise go to the process's stderr.
  debug_file: '/dev/null',
  // Keeps runs of spaces inside lines (table columns) instead of collapsing them.
  preserve_interword_spaces: '1',
};

/** A tesseract.js worker and what ends it. */
interface RunningWorker {
  api: Worker;
  /**
   * Rejects when the worker's thread dies (an uncaught error in it, an out-of-memory abort of its
   * WebAssembly, an exit nobody asked for): jobs sent to it would never be answered.
   */
  died: Promise<never>;
  /** True once `died` has rejected. */
  dead: boolean;
}

/** A worker place of the pool: its tesseract.js worker, started on first use (or starting). */
type Slot = WorkerSlot<Promise<RunningWorker>>;

/** Most dark-background regions of a page recognised apart (each is one more OCR job). */
export const MAX_DARK_REGIONS = 24;

/** Most regions of ink no word covers recognised again (each is one more OCR job). */
export const MAX_UNCOVERED_REGIONS = 16;

/**
 * Least confidence of a word read in a region of ink the page's reading left out: such regions
 * also hold check boxes, signatures and marks, read as noise.
 */
export const MIN_RECOVERED_CONFIDENCE = 0.6;

/**
 * The page's words with those of each dark-background region replaced by the words read from
 * the region inverted, when that read found any: a word belongs to a region when its centre lies
 * inside it. Boxes are in pixels of the original image, regions in pixels of the prepared one
 * (`scale` OCR pixels per original pixel).
 */
export function replaceInRegions(
  words: readonly OcrWord[],
  regions: readonly { region: Region; words: readonly OcrWord[] }[],
  scale: number,
): OcrWord[] {
  const read = regions.filter((r) => r.words.length > 0);
  const inside = (word: OcrWord, region: Region): boolean => {
    const cx = (word.bbox.x + word.bbox.w / 2) * scale;
    const cy = (word.bbox.y + word.bbox.h / 2) * scale;
    return cx >= region.x && cx < region.x + region.w && cy >= region.y && cy < region.y + region.h;
  };
  return [
    ...words.filter((word) => !read.some((r) => inside(word, r.region))),
    ...read.flatMap((r) => r.words),
  ];
}

/**
 * A worker that recognised a band of more pixels than this is replaced after the job:
 * WebAssembly memory grows to fit the largest image a worker has seen and is never given back,
 * so one poster-sized page would otherwise keep hundreds of MB per worker for the life of the
 * process. 16 Mpx is an A3 page at 200 DPI (the highest resolution OCR runs at, see
 * `prepareForOcr`), four times a Letter page; ordinary pages never reach it.
 */
export const RECYCLE_AFTER_PIXELS = 16_000_000;

/** The longest `terminate` waits for recognitions in progress: a dense page at 300 DPI. */
const TERMINATE_WAIT_MS = 30_000;

/**
 * Offline OCR with tesseract.js (the tesseract 5 LSTM engine compiled to WebAssembly).
 *
 * A pool of workers, each created on first use and kept until it has been idle for `idleMs`
 * (start-up costs about half a second; a page takes seconds). Each page image is cut into horizontal bands
 * at blank gaps ({@link splitIntoBands}), one per worker, and the bands are recognised in
 * parallel: on the dev corpus a single page takes about 0.6 of the time one worker needs, with
 * the same words. Concurrent calls share the pool. The language data is read from the local file
 * system only: the folder is checked before a worker starts, so tesseract.js never falls back to
 * its CDN.
 *
 * @example
 * const ocr = new TesseractOcr();
 * const { words } = await ocr.recognize(png, { dpi: 300 });
 * await ocr.terminate();
 */
export class TesseractOcr {
  readonly #langPath: string;
  readonly #parameters: Readonly<Record<string, string>>;
  readonly #preprocess: Omit<PrepareOptions, 'dpi'>;
  readonly #slots: Slot[];
  readonly #idle: Slot[];
  readonly #recycleAfterPixels: number;
  readonly #waiting: ((slot: Slot) => void)[] = [];
  #workersStarted = 0;
  /** Tasks running on a worker now, and who waits for them all to end (see `terminate`). */
  #busy = 0;
  #drained: (() => void)[] = [];

  constructor(options: TesseractOcrOptions = {}) {
    this.#langPath = options.langPath ?? defaultLangPath();
    this.#parameters = {
      ...DEFAULT_PARAMETERS,
      tessedit_pageseg_mode: PSM_CODE[options.pageSegMode ?? 'auto'],
      ...options.parameters,
    };
    this.#preprocess = options.preprocess ?? {};
    this.#recycleAfterPixels = options.recycleAfterPixels ?? RECYCLE_AFTER_PIXELS;
    const idleMs = options.idleMs ?? 60_000;
    const count = Math.max(1, Math.floor(options.workers ?? Math.min(2, availableParallelism())));
    this.#slots = Array.from(
      { length: count },
      () =>
        new WorkerSlot<Promise<RunningWorker>>({
          start: () => this.#createWorker(),
          stop: async (worker) => (await worker).api.terminate(),
          idleMs,
        }),
    );
    this.#idle = [...this.#slots];
  }

  /**
   * Recognises the words of an image.
   *
   * @param image PNG (or any format sharp reads) of one page.
   * Regions of light text on a dark fill (banners, shaded table header rows; see
   * {@link findDarkRegions}) are also recognised apart, inverted, and their words replace those
   * the page read there ({@link replaceInRegions}): inverting them in the page image instead
   * would move tesseract's global threshold and change what it reads everywhere else.
   *
   * Check boxes become `☐`/`☑` words in their labels' lines, and boxes grown over rules and the
   * next line are cut to their ink ({@link markCheckBoxes}, {@link fitWordBoxes}); a check box in
   * ink no word covers is taken as one without being read.
   *
   * @returns words with boxes in pixels of `image` (whatever resampling OCR used internally), in
   *   tesseract's reading order band by band, then the dark regions' words; block, paragraph and
   *   line ids unique in the page; the vertical rules across the dark regions.
   * @throws {ProviderUnavailableError} when the language data is missing, or a worker fails on
   *   the image (tesseract cannot read it, its thread dies): the call rejects, never the process,
   *   and the worker is replaced by a new one on the next call.
   */
  async recognize(image: Uint8Array, options: RecognizeOptions = {}): Promise<OcrResult> {
    const dpi = options.dpi ?? 300;
    const prepared = await prepareForOcr(image, { ...this.#preprocess, dpi });
    const ocrDpi = Math.max(70, Math.round(dpi * prepared.scale));
    // About 1 mm: longer than a rule is thick.
    const cell = Math.max(3, Math.round(ocrDpi / 25));
    // About 8 mm: taller than any letter of body text or headings.
    const ruleLength = Math.round(ocrDpi * 0.3);
    const bands = splitIntoBands(prepared.pixels, prepared.width, prepared.height, {
      parts: this.#slots.length,
      // About 1 mm: more than the space between two lines of text.
      minGap: Math.max(4, Math.round(ocrDpi / 25)),
      ruleLength,
    });
    // Light text on a dark fill (banners, shaded header rows) is recognised apart, inverted; the
    // page itself is recognised as it is, so that its binarisation does not change.
    const dark = findDarkRegions(prepared.pixels, prepared.width, prepared.height, {
      cell,
    }).slice(0, MAX_DARK_REGIONS);
    const pageMode = this.#parameters.tessedit_pageseg_mode ?? PSM_CODE.auto;
    const recognizeGrey = (pgm: Uint8Array, pixels: number, mode = pageMode) =>
      this.#withWorker(pixels, async (worker) => {
        // Without it tesseract guesses the resolution from glyph sizes; its noise and layout
        // thresholds depend on it (tables of handwriting vanish when the guess is low).
        // The page segmentation mode is set for each job: crops of missed ink are one block.
        const parameters: Record<string, string> = {
          user_defined_dpi: String(ocrDpi),
          tessedit_pageseg_mode: mode,
        };
        await worker.setParameters(parameters);
        const { data } = await worker.recognize(Buffer.from(pgm), {}, { blocks: true });
        return data;
      });
    const [pages, regionPages] = await Promise.all([
      Promise.all(
        bands.map(async (band) => ({
          page: await recognizeGrey(
            toPgm(prepared.pixels, prepared.width, band.top, band.height),
            prepared.width * band.height,
          ),
          top: band.top,
        })),
      ),
      Promise.all(
        dark.map(async (region) => {
          const pad = Math.max(8, Math.round(region.h / 2));
          const crop = invertedCrop(prepared.pixels, prepared.width, region, pad);
          return {
            page: await recognizeGrey(
              toPgm(crop.pixels, crop.width, 0, crop.height),
              crop.width * crop.height,
            ),
            region,
            pad,
          };
        }),
      ),
    ]);
    const width = Math.round(prepared.width / prepared.scale);
    const height = Math.round(prepared.height / prepared.scale);
    const words: OcrWord[] = [];
    const ids = { block: 0, paragraph: 0, line: 0 };
    for (const { page, top } of pages) {
      words.push(...toWords(page, { scale: prepared.scale, top, left: 0, width, height, ids }));
    }
    const regionWords = regionPages.map(({ page, region, pad }) => ({
      region,
      words: toWords(page, {
        scale: prepared.scale,
        top: region.y - pad,
        left: region.x - pad,
        width,
        height,
        ids,
      }),
    }));
    const rules = dark.flatMap((region) =>
      rulesInRegion(prepared.pixels, prepared.width, region).map((rule): Segment => {
        const x = (rule.x + rule.w / 2) / prepared.scale;
        return {
          x1: x,
          y1: rule.y / prepared.scale,
          x2: x,
          y2: (rule.y + rule.h) / prepared.scale,
        };
      }),
    );
    const read = replaceInRegions(words, regionWords, prepared.scale);
    // Ink no word covers: text tesseract's page layout left out (words beside check boxes),
    // recognised again region by region.
    const margin = cell / 2;
    const erased = eraseRules(prepared.pixels, prepared.width, prepared.height, ruleLength);
    const missed = findUncoveredInk(
      erased,
      prepared.width,
      prepared.height,
      [
        ...read.map((word) => ({
          x: word.bbox.x * prepared.scale - margin,
          y: word.bbox.y * prepared.scale - margin,
          w: word.bbox.w * prepared.scale + 2 * margin,
          h: word.bbox.h * prepared.scale + 2 * margin,
        })),
        ...dark,
      ],
      { cell },
    ).slice(0, MAX_UNCOVERED_REGIONS);
    const inkImage = {
      pixels: erased,
      width: prepared.width,
      height: prepared.height,
      threshold: otsuThreshold(prepared.pixels),
      scale: prepared.scale,
    };
    const asRecognised = { ...inkImage, pixels: prepared.pixels };
    const recovered = await Promise.all(
      missed.map(async (region) => {
        // A check box standing apart from its label: nothing to read in it.
        const box = checkBoxIn(asRecognised, region);
        if (box !== null) return [checkBoxWord(region, box, prepared.scale, ids)];
        const pad = 2 * cell;
        const crop = paddedCrop(erased, prepared.width, region, pad);
        // One block of text: the automatic layout analysis finds none in a crop this small.
        const page = await recognizeGrey(
          toPgm(crop.pixels, crop.width, 0, crop.height),
          crop.width * crop.height,
          PSM_CODE['single-block'],
        );
        const placement = { scale: prepared.scale, width, height, ids };
        return toWords(page, { ...placement, top: region.y - pad, left: region.x - pad }).filter(
          (word) => isRecovered(word, region, prepared.scale),
        );
      }),
    );
    // Check boxes join their labels' lines; boxes grown over rules and the next line are cut to
    // their ink (rules erased).
    const cleaned = fitWordBoxes(
      markCheckBoxes([...read, ...recovered.flat()], asRecognised),
      inkImage,
      Math.max(1, Math.round(ocrDpi / 100)),
      dark,
    );
    return {
      width,
      height,
      words: cleaned,
      scale: prepared.scale,
      rules,
    };
  }

  /**
   * Stops the workers (if started) once the recognitions in progress have ended, at most
   * {@link TERMINATE_WAIT_MS} later: tesseract.js throws outside any promise, and so ends the
   * process, when a worker is stopped between two messages of a job. Later calls to `recognize`
   * start new workers.
   */
  async terminate(): Promise<void> {
    if (this.#busy > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#drained.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    await Promise.all(this.#slots.map((slot) => slot.close()));
  }

  /**
   * How many workers were started so far: one per slot on first use, plus one per replacement
   * (after a failure, a large band, or an idle release).
   */
  get workersStarted(): number {
    return this.#workersStarted;
  }

  /**
   * Runs `task` on an idle worker of the pool, starting it when needed. A task that fails, or
   * whose worker dies under it, ends the worker; so does a task on more than
   * `recycleAfterPixels` pixels, once it has ended. The slot's idle clock (see
   * {@link WorkerSlot}) runs only while no task holds it.
   */
  async #withWorker<T>(pixels: number, task: (worker: Worker) => Promise<T>): Promise<T> {
    const slot =
      this.#idle.pop() ?? (await new Promise<Slot>((resolve) => this.#waiting.push(resolve)));
    this.#busy++;
    try {
      return await slot.use(async () => {
        let started = this.#started(slot);
        let worker = await started;
        if (worker.dead) {
          // Its thread ended while it was idle: start another.
          await slot.retire(started);
          started = this.#started(slot);
          worker = await started;
        }
        let result: T;
        try {
          result = await Promise.race([task(worker.api), worker.died]);
        } catch (error) {
          await slot.retire(started);
          throw new ProviderUnavailableError(
            `tesseract failed on the page image: ${messageOf(error)}`,
            { cause: error },
          );
        }
        // WebAssembly memory grown for a large band is never given back while the worker lives.
        if (pixels > this.#recycleAfterPixels) await slot.retire(started);
        return result;
      });
    } finally {
      this.#busy--;
      if (this.#busy === 0) for (const resolve of this.#drained.splice(0)) resolve();
      const next = this.#waiting.shift();
      if (next) next(slot);
      else this.#idle.push(slot);
    }
  }

  /** The slot's worker, started now when it has none (a failed start leaves it empty). */
  #started(slot: Slot): Promise<RunningWorker> {
    const worker = slot.worker();
    worker.catch(() => slot.retire(worker));
    return worker;
  }

  async #createWorker(): Promise<RunningWorker> {
    const dataFile = join(this.#langPath, 'eng.traineddata.gz');
    if (!isAbsolute(this.#langPath) || !existsSync(dataFile)) {
      throw new ProviderUnavailableError(
        `OCR language data not found at ${dataFile}; install the @tesseract.js-data/eng package`,
      );
    }
    try {
      // OEM 1 = LSTM only: the best_int data has no legacy-engine models.
      const api = await createWorker('eng', 1, {
        langPath: this.#langPath,
        gzip: true,
        cacheMethod: 'none',
        legacyCore: false,
        legacyLang: false,
        // Without a handler tesseract.js rethrows a failed job's error from its message listener,
        // outside any promise, which ends the process; the job's promise rejects either way.
        errorHandler: () => undefined,
      });
      this.#workersStarted++;
      const running: RunningWorker = { api, died: watchThread(api), dead: false };
      running.died.catch(() => (running.dead = true));
      await Promise.race([api.setParameters(this.#parameters), running.died]);
      return running;
    } catch (error) {
      throw new ProviderUnavailableError(`the OCR worker failed to start: ${String(error)}`, {
        cause: error,
      });
    }
  }
}

/**
 * Listens to the worker thread behind a tesseract.js worker (its `worker` property, a Node
 * `worker_threads` Worker): an 'error' event without a listener would end the process, and a
 * thread that dies leaves the jobs sent to it unanswered. The promise rejects when the thread
 * reports an error or exits; it never resolves.
 */
function watchThread(api: Worker): Promise<never> {
  const thread = (api as unknown as { worker?: NodeWorker | null }).worker;
  const died = new Promise<never>((_resolve, reject) => {
    if (!thread) return;
    thread.on('error', (error: unknown) => {
      reject(new Error(`the OCR worker thread failed: ${messageOf(error)}`, { cause: error }));
    });
    thread.once('exit', (code: number) => {
      reject(new Error(`the OCR worker thread exited with code ${String(code)}`));
    });
  });
  // Nobody may be waiting when the thread ends (an idle worker, or `terminate`).
  died.catch(() => undefined);
  return died;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The `4.0.0_best_int` folder of the installed `@tesseract.js-data/eng` package. */
export function defaultLangPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/**
 * Whether a word read again in a region of uncovered ink (boxes in pixels of the original image,
 * the region in pixels of the prepared one) is kept: its centre lies in the region, not in the
 * margin around it, it holds a letter or a digit, and it was read with
 * {@link MIN_RECOVERED_CONFIDENCE} at least.
 */
export function isRecovered(word: OcrWord, region: Region, scale: number): boolean {
  const cx = (word.bbox.x + word.bbox.w / 2) * scale;
  const cy = (word.bbox.y + word.bbox.h / 2) * scale;
  return (
    word.confidence >= MIN_RECOVERED_CONFIDENCE &&
    /[\p{L}\p{N}]/u.test(word.text) &&
    cx >= region.x &&
    cx < region.x + region.w &&
    cy >= region.y &&
    cy < region.y + region.h
  );
}

/** Where a band's words go: its scale and offset, the page size, the ids used so far. */
interface BandPlacement {
  scale: number;
  /** Row and column of the prepared image where the band's image starts. */
  top: number;
  left: number;
  width: number;
  height: number;
  ids: { block: number; paragraph: number; line: number };
}

function toWords(page: Page, placement: BandPlacement): OcrWord[] {
  const { scale, top, ids } = placement;
  const words: OcrWord[] = [];
  for (const block of page.blocks ?? []) {
    const blockId = ++ids.block;
    for (const paragraph of block.paragraphs) {
      const paragraphId = ++ids.paragraph;
      for (const line of paragraph.lines) {
        const lineId = ++ids.line;
        const fontSize =
          (line.rowAttributes.rowHeight + Math.abs(line.rowAttributes.descenders)) / scale;
        for (const word of line.words) {
          const text = word.text.trim();
          if (text === '') continue;
          const bbox = mapBox(word.bbox, placement);
          if (bbox === null) continue;
          words.push({
            text,
            confidence: Math.min(1, Math.max(0, word.confidence / 100)),
            bbox,
            blockId,
            paragraphId,
            lineId,
            baseline: (baselineAt(line, (word.bbox.x0 + word.bbox.x1) / 2) + top) / scale,
            fontSize: fontSize > 0 ? fontSize : bbox.h,
          });
        }
      }
    }
  }
  return words;
}

/** Scales a tesseract box back to the original image and clips it to the image. */
function mapBox(box: Bbox, { scale, top, left, width, height }: BandPlacement): OcrBox | null {
  const x0 = Math.max(0, Math.min(width, (box.x0 + left) / scale));
  const y0 = Math.max(0, Math.min(height, (box.y0 + top) / scale));
  const x1 = Math.max(0, Math.min(width, (box.x1 + left) / scale));
  const y1 = Math.max(0, Math.min(height, (box.y1 + top) / scale));
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

function baselineAt(line: Line, x: number): number {
  const { x0, y0, x1, y1 } = line.baseline;
  if (x1 === x0) return line.bbox.y1;
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/**
 * A word for a check box found in ink no word covers (`region`, pixels of the prepared image):
 * its own block, paragraph and line until {@link markCheckBoxes} sets it in its label's line.
 */
function checkBoxWord(
  region: Region,
  state: keyof typeof CHECK_BOX,
  scale: number,
  ids: { block: number; paragraph: number; line: number },
): OcrWord {
  const bbox = {
    x: region.x / scale,
    y: region.y / scale,
    w: region.w / scale,
    h: region.h / scale,
  };
  return {
    text: CHECK_BOX[state],
    confidence: 1,
    bbox,
    blockId: ++ids.block,
    paragraphId: ++ids.paragraph,
    lineId: ++ids.line,
    baseline: bbox.y + bbox.h,
    fontSize: bbox.h,
  };
}
