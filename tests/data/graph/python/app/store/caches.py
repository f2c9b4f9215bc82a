class Cache:
    """A base class whose methods call others on self: a subclass's override runs."""

    def __setitem__(self, key, value):
        while self.full():
            self.popitem()
        self.__store(key, value)

    def full(self):
        return False

    def popitem(self):
        return None

    def __store(self, key, value):
        pass


class LRUCache(Cache):
    def popitem(self):
        return self.__store("k", "v")

    def __store(self, key, value):  # mangled: LRUCache's own, never Cache's caller's
        pass


class TimedLRUCache(LRUCache):
    def popitem(self):
        return None


class Unrelated:
    def popitem(self):  # the trap: not a subclass of Cache
        return None


class TimedCache(Cache):
    def touch(self):
        self.expire()  # defined by each subclass only


class TTLCache(TimedCache):
    def expire(self):
        pass


class TLRUCache(TimedCache):
    def expire(self):
        pass
