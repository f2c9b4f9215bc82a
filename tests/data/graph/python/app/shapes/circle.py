class Circle:
    def __init__(self):
        self.radius = 0

    def resize(self, radius):
        self.radius = radius


class Image:
    def scale(self, width, height, *, keep=True):
        return width, height, keep

    def emit(self, *parts, **fields):
        return parts, fields


def retry(fn):
    return fn


class Job:
    @retry
    def submit(self, a, b, c):
        return a, b, c


class Queue:
    def submit(self, item):
        return item
