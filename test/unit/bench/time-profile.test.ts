import type { Profiler } from 'node:inspector';
import { describe, expect, it } from 'vitest';
import { profileRows, stageCpuTimes } from '../../../bench/time-profile.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, scriptId: String(id), lineNumber: 0, columnNumber: 0 },
  children,
});

describe('stageCpuTimes', () => {
  it('charges each sample to the innermost stage frame of its stack', () => {
    // Arrange: root → parsePage (pipeline) → analyzePage (layout-page) → sort (native)
    //                                       → scorePage (page-scores)
    const profile: Profiler.Profile = {
      nodes: [
        frame(1, '(root)', '', [2, 6, 7]),
        frame(2, 'parsePage', 'file:///x/functions/core/domain/pipeline/parse-page.ts', [3, 5]),
        frame(3, 'readingOrder', 'file:///x/functions/engines/layout/reading-order.ts', [4]),
        frame(4, 'sort', ''),
        frame(5, 'scorePage', 'file:///x/functions/core/domain/page-scores.ts'),
        frame(6, '(idle)', ''),
        frame(7, 'toString', 'node:internal/util'),
      ],
      startTime: 0,
      endTime: 7000,
      samples: [4, 4, 5, 2, 6, 7, 4],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000],
    };
    // Act
    const times = stageCpuTimes(profile);
    // Assert
    expect(Object.fromEntries(times)).toEqual({
      'layout: reading-order': 2,
      'scoring and post-processing': 1,
      'pipeline (state machine, stages)': 1,
      'idle (waiting for workers, I/O)': 1,
      'other (Node, module loading)': 1,
    });
  });
});

describe('profileRows', () => {
  it('lists stages largest first with their share of the total', () => {
    // Act
    const rows = profileRows(
      new Map<string, number | { calls: number; ms: number }>([
        ['a', 10],
        ['b', { calls: 3, ms: 30 }],
      ]),
      100,
    );
    // Assert
    expect(rows).toEqual(['| b | 3 | 30 | 30.0% |', '| a |  | 10 | 10.0% |']);
  });
});
