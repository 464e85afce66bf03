"""The error users can cause (bad input files, unknown names); anything else is a bug."""


class InputError(ValueError):
    """Bad user input. The command line prints the message and exits with status 1, without a traceback."""
