"""Errors that map to smrlab's exit codes: BadInput -> 2, Failure -> 1, Interrupted -> 128+signal."""


class BadInput(Exception):
    """The user gave something unusable (experiment file, path, option); nothing was written.
    Each argument is one problem, printed on its own line."""


class Failure(Exception):
    """The tooling could not do its job (smrbench capabilities missing, report machinery)."""


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived (to smrlab, or to the smrbench it was running); like
    KeyboardInterrupt, it passes through `except Exception`. `outcome` is the trial smrbench
    completed before it stopped, if it did (smrbench.Outcome), to be stored before stopping."""

    def __init__(self, signum: int, outcome=None):
        super().__init__(signum)
        self.signum = signum
        self.outcome = outcome
