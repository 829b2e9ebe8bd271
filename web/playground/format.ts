/** Display formats of numbers: money, durations, sizes, scores. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** An integer with thousands separators: `12,345`. */
export function formatInteger(value: number): string {
  return integer.format(value);
}

/** US dollars: cents for amounts of a cent or more, else four decimals (`$0.0010`). */
export function formatUsd(value: number): string {
  if (value === 0) return '$0';
  return value >= 0.01 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** Milliseconds: `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${String(Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${String(minutes)} min ${String(Math.round((ms % 60_000) / 1000))} s`;
}

/** Bytes in binary units: `512 B`, `158.3 KiB`, `1.2 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A score in [0, 1] with two decimals: `0.95`. */
export function formatScore(score: number): string {
  return score.toFixed(2);
}
