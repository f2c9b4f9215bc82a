import { operate } from './op';
import { Observable } from './obs';
export function finalize<T>(o: Observable<T>) {
  operate((source, n) => {
    source.subscribe();
  });
  new Observable<T>(function (subscriber) {
    subscriber.complete();
  });
  o.pipe((src) => src.subscribe());
}
