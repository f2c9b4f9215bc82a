"""A tiny HTTP-ish transport layer, used as an extraction fixture."""

import logging
import os.path
import json as jsonlib
from typing import Optional
from .retry import backoff as retry_backoff
from . import codecs

log = logging.getLogger(__name__)


class Transport:
    """Base transport: sends raw bytes."""

    def __init__(self, host: str, port: int = 80) -> None:
        self.host = host
        self.port = port

    def send(self, payload: bytes) -> int:
        """Send a payload and return the number of bytes written."""
        log.debug("sending %d bytes", len(payload))
        return len(payload)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @address.setter
    def address(self, value: str) -> None:
        self.host, _, port = value.partition(":")
        self.port = int(port)


# Transport that retries failed sends.
class RetryingTransport(Transport):
    """Retry `send` with exponential backoff."""

    def __init__(self, host: str, attempts: int = 3) -> None:
        super().__init__(host)
        self.attempts = attempts

    def send(self, payload: bytes) -> int:
        def attempt(n: int) -> int:
            delay = retry_backoff(n)
            log.info("attempt %d after %.1fs", n, delay)
            return super(RetryingTransport, self).send(payload)

        for n in range(self.attempts):
            try:
                return attempt(n)
            except OSError:
                continue
        raise OSError("all attempts failed")


class Client:
    """High-level client that encodes messages as JSON."""

    transport: Optional[Transport] = None

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def send(self, message: dict) -> int:
        body = codecs.encode(jsonlib.dumps(message))
        return self.transport.send(body)

    def send_all(self, messages: list[dict]) -> int:
        total = 0
        for message in messages:
            total += self.send(message)
        return total


def load_config(path: str) -> dict:
    """Read a JSON config file, or return an empty config."""
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return jsonlib.load(fh)


def main() -> None:
    config = load_config("client.json")
    transport = RetryingTransport(config.get("host", "localhost"))
    client = Client(transport)
    to_upper = lambda s: s.upper()
    client.send({"hello": to_upper("world")})
    print(transport.address)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    main()
