export class Subscriber<T> {
  complete(): void {}
}
export class Observable<T> {
  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}
  subscribe(): void {}
  pipe(fn: (src: Observable<T>) => void): void {}
}
