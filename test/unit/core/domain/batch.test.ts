import { describe, expect, it } from 'vitest';
import {
  shownStatus,
  totalsOf,
  type BatchStatus,
  type BatchTotals,
} from '../../../../functions/core/domain/batch.js';

const items = (...statuses: BatchStatus[]) => statuses.map((status) => ({ status }));

describe('totalsOf', () => {
  it('counts the items in each status', () => {
    // Act
    const totals = totalsOf(items('completed', 'queued', 'failed', 'completed', 'in_progress'));
    // Assert
    expect(totals).toEqual({ queued: 1, in_progress: 1, completed: 2, failed: 1 });
  });

  it('counts nothing for no items', () => {
    expect(totalsOf([])).toEqual({ queued: 0, in_progress: 0, completed: 0, failed: 0 });
  });
});

describe('shownStatus', () => {
  const totals = (t: Partial<BatchTotals>): BatchTotals => ({
    queued: 0,
    in_progress: 0,
    completed: 0,
    failed: 0,
    ...t,
  });

  it.each<[string, BatchStatus, Partial<BatchTotals>, BatchStatus]>([
    ['a batch none of whose items started', 'queued', { queued: 3 }, 'queued'],
    [
      'an item started before the record counted it',
      'queued',
      { queued: 2, in_progress: 1 },
      'in_progress',
    ],
    [
      'an item ended before the record counted its start',
      'queued',
      { queued: 2, failed: 1 },
      'in_progress',
    ],
    ['a running batch', 'in_progress', { queued: 1, completed: 2 }, 'in_progress'],
    [
      'every item ended before the record ended',
      'in_progress',
      { completed: 2, failed: 1 },
      'in_progress',
    ],
    ['an ended batch', 'completed', { completed: 2, failed: 1 }, 'completed'],
    ['an ended batch whose every item failed', 'failed', { failed: 3 }, 'failed'],
    [
      'an ended record read with an item still open',
      'completed',
      { completed: 2, in_progress: 1 },
      'in_progress',
    ],
  ])('shows %s as the items say', (_, recorded, counted, expected) => {
    // Act
    const status = shownStatus({ status: recorded, itemCount: 3 }, totals(counted));
    // Assert
    expect(status).toBe(expected);
  });
});
