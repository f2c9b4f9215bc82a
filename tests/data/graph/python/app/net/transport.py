class Transport:
    def __init__(self, host):
        self.host = host

    def send(self, data):
        return self.write(data)

    def write(self, data):
        return len(data)


class RetryMixin:
    def send_with_retry(self, data):
        for _ in range(3):
            self.send(data)
        return self.close()


class RetryingTransport(RetryMixin, Transport):
    def send(self, data):
        return super().send(data)

    def close(self):
        return None
