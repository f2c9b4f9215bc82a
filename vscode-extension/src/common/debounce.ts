// Debouncing and "latest answer wins" for as-you-type requests. Pure.

export interface Debounced<A extends unknown[]> {
  (...args: A): void;
  cancel(): void;
  flush(): void;
  readonly pending: boolean;
}

/** Calls `fn` with the last arguments once `ms` have passed without another call. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: A | undefined;
  const run = () => {
    timer = undefined;
    const args = last as A;
    last = undefined;
    fn(...args);
  };
  const debounced = ((...args: A) => {
    last = args;
    if (timer !== undefined) {
      clearTimeout(timer);
    }
    timer = setTimeout(run, ms);
  }) as Debounced<A>;
  debounced.cancel = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
    }
    timer = undefined;
    last = undefined;
  };
  debounced.flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      run();
    }
  };
  Object.defineProperty(debounced, 'pending', { get: () => timer !== undefined });
  return debounced;
}

/**
 * Hands out tickets; only the newest ticket is current. An as-you-type search keeps
 * the answer to the last query and drops answers that arrive late for older ones.
 */
export class Latest {
  private seq = 0;

  next(): number {
    return ++this.seq;
  }

  isCurrent(ticket: number): boolean {
    return ticket === this.seq;
  }

  invalidate(): void {
    this.seq++;
  }
}
