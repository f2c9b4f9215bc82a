def fit(item, w, h):
    item.resize(w, h)


def shrink(item, r):
    item.resize(r)


def zoom(view, w, h):
    view.scale(2)
    view.scale(w, h)


def log(sink, a, b, c):
    sink.emit(a, b, c)
    sink.emit(a)


def enqueue(q, x):
    q.submit(x)
