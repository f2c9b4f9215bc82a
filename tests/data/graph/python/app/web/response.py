class Response:
    def __init__(self, status, body):
        self.status = status
        self.body = body

    def json(self):
        return self.body


class Redirect:
    def __init__(self, location):
        self.location = location

    def json(self):
        return {"location": self.location}


class Stream:
    """Never made by the session nor kept by the client: its `json` is no target."""

    def json(self):
        return None
