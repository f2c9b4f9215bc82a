"""HTTP client used by the shop."""
import time


class Client:
    """Talks to the payment server."""

    def fetch(self, url: str) -> bytes:
        """Download a URL, retrying failed connections with backoff."""
        for attempt in range(3):
            try:
                return self.send(url)
            except ConnectionError:
                time.sleep(2 ** attempt)
        raise ConnectionError(url)

    def send(self, url: str) -> bytes:
        return url.encode()


def parse_header(line: str) -> tuple[str, str]:
    """Split an HTTP header line into name and value."""
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()
