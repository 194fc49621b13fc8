"""``DemoError``: a problem with the user's input or environment, reported as one line."""


class DemoError(Exception):
    """Bad input (a ``--data`` file, an ``--out`` path): the CLI prints the message as a
    single line on stderr and exits with status 1, without a traceback."""
