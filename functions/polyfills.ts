/**
 * Runtime shims for Node 20 (these machines); Lambda's nodejs22.x has them natively.
 *
 * `Promise.withResolvers` is used by aws-local-stepfunctions and pdf.js.
 */
interface WithResolvers {
  withResolvers?: <T>() => {
    promise: Promise<T>;
    resolve: (value: T | PromiseLike<T>) => void;
    reject: (reason?: unknown) => void;
  };
}

const promiseCtor = Promise as unknown as WithResolvers;
promiseCtor.withResolvers ??= <T>() => {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

export {};
