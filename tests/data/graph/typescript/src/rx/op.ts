import { Observable } from './obs';
export function operate<T>(init: (liftedSource: Observable<T>, n: number) => void): void {
  init(new Observable<T>(), 1);
}
