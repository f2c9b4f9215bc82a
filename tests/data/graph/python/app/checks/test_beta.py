class Clock:
    def __init__(self):
        self.now = 100

    def advance(self, by=1):
        self.now += by


def test_refresh(cache):
    cache.clock.advance(5)
    assert not cache.expired()
