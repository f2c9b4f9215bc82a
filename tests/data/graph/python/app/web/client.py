from .response import Redirect
from .session import Session


class Client:
    def __init__(self, base):
        self.base = base
        self.session = None
        self.history = []
        self.by_url = {}

    def open(self):
        self.session = Session()

    def fetch(self, url):
        resp = self.session.get(self.base + url)
        self.history.append(resp)
        self.by_url[url] = resp
        return resp.json()

    def last(self):
        return self.history[-1].json()

    def replay(self):
        for resp in self.history:
            resp.json()
        for i, resp in enumerate(self.history):
            resp.json()

    def cached(self, url):
        hit = self.by_url.get(url)
        for url, resp in self.by_url.items():
            resp.json()
        first = next(iter(self.by_url.values()))
        first.json()
        return hit.json()

    def health(self):
        return self.session.status(self.base).json()


class Browser:
    def __init__(self, session):
        self.session = session
        self.pages = [Session().resolve("/")]
        self.tabs = {}

    def visit(self, url):
        self.tabs[url] = Session().get(url)
        self.tabs["home"] = Redirect("/")

    def reload(self):
        for page in self.pages:
            page.json()
        for tab in self.tabs.values():
            tab.json()
        return [t.json() for t in self.tabs.values()]
