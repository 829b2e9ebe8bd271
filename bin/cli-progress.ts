import cliProgress from 'cli-progress';

/**
 * Progress display of the `docparse` command line, on stderr: a bar (cli-progress) for work
 * with a known size, an elapsed-time line for a wait of unknown length. Shown when stderr is a
 * terminal, or anywhere with `--progress`; never with `--quiet`. Disabled, every call does
 * nothing.
 */

/** A bar of `value` done out of `total`. */
export interface ProgressBar {
  /** Sets the units done, and the total when it becomes known or changes. */
  update(value: number, total?: number): void;
  /** Removes the bar (on a terminal) so that what follows starts on a clean line. */
  stop(): void;
}

/** Where progress is shown. */
export interface Progress {
  /** False when nothing is shown (not a terminal, or `--quiet`). */
  readonly enabled: boolean;
  /**
   * Starts a bar `label [████░░░░] value/total unit | elapsed`.
   * @param total units of work; 0 while unknown (set it later with `update`).
   */
  bar(label: string, total: number, unit: string): ProgressBar;
  /** Starts `label… 12 s`, updated every second on a terminal (printed once elsewhere). */
  waiting(label: string): { stop(): void };
}

const NONE: ProgressBar = { update: () => undefined, stop: () => undefined };

/** A {@link Progress} that shows nothing. */
export const noProgress: Progress = {
  enabled: false,
  bar: () => NONE,
  waiting: () => NONE,
};

/**
 * The progress display for `stream`.
 * @param show whether to show progress at all (stderr is a terminal, or `--progress`).
 */
export function createProgress(stream: NodeJS.WriteStream, show: boolean): Progress {
  if (!show) return noProgress;
  const tty = stream.isTTY;
  return {
    enabled: true,
    bar(label, total, unit) {
      const bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label} [{bar}] {value}/{total} ${unit} | {duration_formatted}`,
          barsize: 24,
          hideCursor: tty,
          clearOnComplete: tty,
          noTTYOutput: !tty,
          notTTYSchedule: 1000,
          etaBuffer: 20,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
      let stopped = false;
      return {
        update(value, newTotal) {
          if (stopped) return;
          if (newTotal !== undefined && newTotal !== bar.getTotal()) bar.setTotal(newTotal);
          bar.update(value);
        },
        stop() {
          if (stopped) return;
          stopped = true;
          bar.stop();
        },
      };
    },
    waiting(label) {
      const started = Date.now();
      if (!tty) {
        stream.write(`${label}…\n`);
        return { stop: () => undefined };
      }
      const draw = () => {
        const seconds = Math.floor((Date.now() - started) / 1000);
        stream.write(`\r\x1b[2K${label}… ${seconds} s`);
      };
      draw();
      const timer = setInterval(draw, 1000);
      let stopped = false;
      return {
        stop() {
          if (stopped) return;
          stopped = true;
          clearInterval(timer);
          stream.write('\r\x1b[2K');
        },
      };
    },
  };
}
