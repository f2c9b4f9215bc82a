from .response import Redirect, Response


class BaseSession:
    def dispatch(self, method, url):
        return Response(200, url)


class Session(BaseSession):
    def request(self, method, url, retries=0):
        if retries:
            return self.request(method, url, retries - 1)
        resp = super().dispatch(method, url)
        return resp

    def get(self, url):
        return self.request("GET", url)

    def resolve(self, url):
        if url.startswith("/"):
            return Redirect(url)
        return self.get(url)

    def status(self, url):
        return "ok" if url else "down"
