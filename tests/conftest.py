from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANCE_LOG", "error")
# the suite expects the CPU's backend (auto: onnx) even on a machine with a GPU; the GPU
# tests (test_device.py) lift this for themselves
os.environ.setdefault("CODELOUPE_NO_GPU", "1")


@pytest.fixture(scope="session")
def embedder():
    """The real bundled model, loaded once per test session."""
    from codeloupe.embed import load_embedder

    return load_embedder("default")


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


SAMPLE_REPO: dict[str, str | bytes] = {
    "src/shop/http.py": '''"""HTTP client used by the shop."""
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
''',
    "src/shop/cart.py": '''from .http import Client


class Cart:
    def __init__(self):
        self.items = []

    def add_item(self, sku: str, quantity: int = 1) -> None:
        """Put a product into the shopping cart."""
        self.items.append((sku, quantity))

    def total_price(self, prices: dict) -> float:
        """Sum the price of every item in the cart."""
        return sum(prices[sku] * qty for sku, qty in self.items)


def checkout(cart: Cart) -> bytes:
    client = Client()
    return client.fetch("https://pay.example/checkout")
''',
    "web/upload.js": '''// Upload files to the storage bucket.
export async function uploadFile(bucket, file) {
  const body = await file.arrayBuffer();
  return retryFailedUpload(() => bucket.put(file.name, body), 5);
}

/** Retry a failed upload with exponential backoff. */
function retryFailedUpload(fn, attempts) {
  for (let i = 0; i < attempts; i++) {
    try { return fn(); } catch (err) { console.warn(err); }
  }
  throw new Error("upload failed");
}
''',
    "cmd/main.go": '''package main

import "fmt"

// Greeter prints greetings.
type Greeter struct{ Name string }

// Greet says hello to someone by name.
func (g Greeter) Greet(who string) string {
	return fmt.Sprintf("hello %s from %s", who, g.Name)
}

func main() {
	g := Greeter{Name: "codeloupe"}
	fmt.Println(g.Greet("world"))
}
''',
}


@pytest.fixture()
def sample_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    return root
