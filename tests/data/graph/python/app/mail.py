from app.net import transport as tr
from . import Transport as T


class Mailer:
    def send(self, message):
        return message

    def flush(self):
        return self.send("x")


def make_mailer() -> Mailer:
    return Mailer()


class Service:
    def __init__(self, conn: tr.Transport):
        self.mailer = make_mailer()
        self.conn = conn

    def run(self, data):
        self.mailer.send(data)
        self.conn.send(data)
        t = T("h")
        t.send(data)
        r: tr.RetryingTransport = build()
        r.send_with_retry(data)
        make_mailer().flush()
        items = {}
        items.get("k")
        unknown.send(data)

        def helper():
            return t.write(data)

        return helper()


def build():
    return tr.RetryingTransport("h")


def pick(mailers: list[Mailer]):
    mailers[0].flush()
    mailers[1:].count(2)
