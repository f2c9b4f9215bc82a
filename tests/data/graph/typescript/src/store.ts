export interface Store {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
}

export interface Clock {
  now(): number;
}

export class MemoryStore implements Store {
  private items = new Map<string, string>();

  get(key: string): string | undefined {
    return this.items.get(key);
  }

  put(key: string, value: string): void {
    this.items.set(key, value);
  }
}

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

export class FakeClock implements Clock {
  now(): number {
    return 0;
  }
}

// a class with the same method names that implements nothing
export class Cache {
  get(key: string): string {
    return key;
  }
}

export class Session {
  constructor(private store: Store, private clock: Clock) {}

  load(key: string): string | undefined {
    const started = this.clock.now();
    return this.store.get(key) ?? String(started);
  }
}

export function save(s: Store, key: string): void {
  s.put(key, "1");
}
