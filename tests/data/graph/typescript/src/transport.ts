export interface Sender {
  send(data: string): number;
}

export class Transport implements Sender {
  constructor(public host: string) {}

  send(data: string): number {
    return this.write(data);
  }

  write(data: string): number {
    return data.length;
  }
}

export class RetryingTransport extends Transport {
  send(data: string): number {
    return super.send(data);
  }
}
