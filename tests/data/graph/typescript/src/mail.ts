import { RetryingTransport as RT, Transport } from './transport';
import * as tr from './transport';

export class Mailer {
  send(message: string): string {
    return message;
  }
}

export function makeMailer(): Mailer {
  return new Mailer();
}

export class Service {
  private mailer = makeMailer();

  constructor(private conn: Transport) {}

  run(data: string): void {
    this.mailer.send(data);
    this.conn.send(data);
    const t = new RT('h');
    t.send(data);
    const u: tr.Transport = pick();
    u.write(data);
    const m = new Map<string, number>();
    m.get('k');
  }
}

function pick(): Transport {
  return new tr.Transport('x');
}
