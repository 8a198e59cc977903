"""The error a model that cannot be loaded raises, in a module of its own: the command line and the page catch it
without importing torch or open_clip."""


class ModelUnavailable(RuntimeError):
    """A model that cannot be loaded; the message is one sentence meant for the user."""
