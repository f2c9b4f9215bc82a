class Box:
    def __init__(self):
        self.width = self.height = 0

    def resize(self, width, height):
        self.width, self.height = width, height


class Panel:
    def scale(self, factor, origin=None):
        return factor, origin

    def emit(self, event):
        return event
