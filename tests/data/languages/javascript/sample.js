import EventEmitter from 'node:events';
import { createRequire } from 'node:module';
import { format as fmt, inspect } from 'node:util';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const pkg = require('./package.json');
const { retry, backoff: wait } = require('./retry.cjs');

/**
 * Base transport: writes raw frames.
 */
export class Transport extends EventEmitter {
  #sent = 0;

  constructor(host) {
    super();
    this.host = host;
  }

  /** Send one frame and return its size. */
  send(frame) {
    this.#sent += frame.length;
    this.emit('frame', frame);
    return frame.length;
  }

  get sent() {
    return this.#sent;
  }
}

// Retries failed frames with backoff.
export class RetryingTransport extends Transport {
  constructor(host, attempts = 3) {
    super(host);
    this.attempts = attempts;
  }

  send(frame) {
    const attempt = (n) => {
      wait(n);
      return super.send(frame);
    };
    return retry(attempt, this.attempts);
  }

  onError = (err) => {
    console.error(fmt('transport %s failed: %s', this.host, inspect(err)));
  };
}

export class Client {
  constructor(transport) {
    this.transport = transport;
    this.headers = { 'user-agent': `${pkg.name}/${pkg.version}` };
  }

  send(message) {
    function encode(value) {
      return Buffer.from(JSON.stringify(value));
    }
    return this.transport.send(encode(message));
  }
}

/** Fetch a user record through a fresh client. */
export const fetchUser = async (id) => {
  const transport = new RetryingTransport('localhost');
  const client = new Client(transport);
  client.send({ op: 'get', id });
  return transport.sent;
};

const handlers = {
  ping() {
    return 'pong';
  },
  echo: (text) => text.trim(),
};

Client.prototype.close = function () {
  this.transport.removeAllListeners();
};

const file = path.join(process.cwd(), 'client.log');
fetchUser(1).then((size) => console.log(file, size, handlers.ping()));

globalThis.reportError = function report(err) {
  console.error(err);
};
