"""Text helpers for labels 😀."""


def shout(text: str) -> str:
    """Upper-case a text and add emphasis."""
    return text.upper() + "!"


def greet(name: str) -> str:
    label = "😀 héllo"; return label + shout(name)
