/** Time and ids, injectable for tests. */
export interface Clock {
  now(): Date;
}
