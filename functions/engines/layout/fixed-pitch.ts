import type { TextRun } from './types.js';
import { visibleLength } from './white-space.js';

/** Largest spread (largest ÷ smallest advance per character) of a fixed-pitch font's runs. */
const PITCH_SPREAD = 1.04;
/** Short runs (3 to 15 characters) needed to tell a fixed pitch from an average. */
const SHORT_RUNS = 3;

/** Characters of a run up to its last visible one (the box ends there). */
const span = (text: string): number => Array.from(text.replace(/\s+$/, '')).length;

/**
 * Fonts of a page whose glyphs all have one advance: every run of the font, short or long, is
 * as wide per character (within 4%) as every other. Producers often leave the fixed-pitch flag
 * out of a font's descriptor (`BookMasterGothic`, a listing font): its name says nothing and
 * only its geometry does. Short runs decide (long runs of any font average out to about the same
 * advance): three or more of them with two letters or more, not all the same text.
 *
 * @param bodyFont the document's body font, never taken for a listing's.
 * @returns the names of the fixed-pitch fonts among `runs`.
 */
export const fixedPitchFonts = (runs: readonly TextRun[], bodyFont?: string): Set<string> => {
  const byFont = new Map<string, TextRun[]>();
  for (const r of runs) {
    if (r.rotation !== undefined || r.fontName === '' || r.monospace) continue;
    if (r.fontName === bodyFont) continue;
    if (span(r.text) < 3) continue;
    const list = byFont.get(r.fontName) ?? [];
    list.push(r);
    byFont.set(r.fontName, list);
  }
  const out = new Set<string>();
  for (const [font, list] of byFont) {
    const short = list.filter(
      (r) => span(r.text) <= 15 && (r.text.match(/\p{L}/gu) ?? []).length >= 2,
    );
    if (short.length < SHORT_RUNS || new Set(short.map((r) => r.text.trim())).size < 2) continue;
    const advances = list.map((r) => r.w / span(r.text));
    const least = Math.min(...advances);
    if (least > 0 && Math.max(...advances) / least <= PITCH_SPREAD) out.add(font);
  }
  return out;
};

/** `runs` with those set in a fixed-pitch font ({@link fixedPitchFonts}) marked monospace. */
export const markFixedPitch = (runs: readonly TextRun[], bodyFont?: string): TextRun[] => {
  const fonts = fixedPitchFonts(runs, bodyFont);
  if (fonts.size === 0) return [...runs];
  return runs.map((r) => (fonts.has(r.fontName) && !r.monospace ? { ...r, monospace: true } : r));
};

/** The font carrying the most characters of `runs` (undefined when none is named). */
export const dominantFont = (runs: readonly TextRun[]): string | undefined => {
  const chars = new Map<string, number>();
  for (const r of runs) {
    if (r.fontName === '') continue;
    chars.set(r.fontName, (chars.get(r.fontName) ?? 0) + visibleLength(r.text));
  }
  return [...chars].sort((a, b) => b[1] - a[1])[0]?.[0];
};
