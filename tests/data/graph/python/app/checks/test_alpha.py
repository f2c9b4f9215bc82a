class Clock:
    def __init__(self):
        self.now = 0

    def advance(self, by=1):
        self.now += by


def test_expiry(cache):
    cache.clock.advance()
    assert cache.expired()
