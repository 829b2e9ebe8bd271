/** One progress event (spec §6): `event` is its name, the other keys its fields. */
export interface ProgressEvent {
  event: string;
  [field: string]: unknown;
}

/** A stored event with its position in the request's log (1, 2, 3, ...). */
export interface LoggedEvent {
  seq: number;
  at: string;
  body: ProgressEvent;
}

/** Append-only per-request event log (`REQ#<id>` / `EVT#<seq>`), tailed by the SSE handlers. */
export interface EventLog {
  /**
   * Appends and returns the event's sequence number; concurrent appends get distinct, increasing
   * numbers. The appends of one request made by one process are numbered in the order they are
   * made, even when the caller does not wait for one before making the next.
   */
  append(requestId: string, event: ProgressEvent): Promise<number>;
  /**
   * Declares the log of a request just created (no events yet), so that its first append need
   * not look for earlier events. A hint only: a wrong one costs a retry, never an event.
   */
  opened(requestId: string): void;
  /** Events with `seq > afterSeq` (all when omitted), ascending. */
  list(requestId: string, afterSeq?: number): Promise<LoggedEvent[]>;
}

/**
 * Where a pipeline stage reports progress on its request. `emit` returns at once; the events are
 * written in the order emitted, after the stage's `node.started` and before its `node.completed`.
 */
export interface ProgressSink {
  emit(event: ProgressEvent): void;
}
