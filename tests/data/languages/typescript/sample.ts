import { EventEmitter } from 'events';
import type { Agent } from 'http';
import { encode as encodeFrame, decode } from './codec';
import * as metrics from './metrics';
import fs = require('fs');

/** A frame on the wire. */
export interface Frame<T = unknown> {
  id: number;
  payload: T;
  ack(): Promise<void>;
}

export type Handler<T> = (frame: Frame<T>) => void;

export enum Level {
  Debug,
  Info,
}

/**
 * Base transport: writes frames to a socket.
 */
export abstract class Transport extends EventEmitter {
  protected sent = 0;

  constructor(protected readonly host: string, private agent?: Agent) {
    super();
  }

  send<T>(frame: Frame<T>): number {
    const bytes = encodeFrame(frame.payload);
    this.sent += bytes.length;
    return bytes.length;
  }

  abstract close(): void;
}

// Retries failed sends with backoff.
export class RetryingTransport extends Transport {
  private attempts: number;

  constructor(host: string, attempts = 3) {
    super(host);
    this.attempts = attempts;
  }

  send<T>(frame: Frame<T>): number {
    for (let i = 0; i < this.attempts; i++) {
      try {
        return super.send(frame);
      } catch (err) {
        metrics.increment('retry');
      }
    }
    throw new Error(`giving up after ${this.attempts} attempts`);
  }

  close(): void {
    this.removeAllListeners();
  }
}

export namespace Protocol {
  export class Client {
    private readonly handlers = new Map<number, Handler<unknown>>();

    constructor(private transport: Transport) {}

    /** Send a raw string or a structured message. */
    send(message: string): number;
    send(message: object): number;
    send(message: string | object): number {
      const text = typeof message === 'string' ? message : JSON.stringify(message);
      return this.transport.send({ id: Date.now(), payload: text, ack: async () => {} });
    }

    onFrame = (raw: Buffer): void => {
      const frame = decode<Frame>(raw);
      this.handlers.get(frame.id)?.(frame);
    };
  }
}

export async function fetchUser<T extends object>(id: string): Promise<T> {
  const transport = new RetryingTransport('localhost');
  const client = new Protocol.Client(transport);
  function log(level: Level, msg: string): void {
    console.log(Level[level], msg);
  }
  log(Level.Info, `fetching ${id}`);
  client.send({ op: 'get', id });
  return JSON.parse(fs.readFileSync(`/tmp/${id}.json`, 'utf8')) as T;
}

export const retryLater = <T,>(fn: () => Promise<T>, ms = 100): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

fetchUser<{ name: string }>('42').then((user) => console.info(user.name));
