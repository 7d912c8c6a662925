"""Errors that map to smrlab's exit codes: BadInput -> 2, Failure -> 1."""


class BadInput(Exception):
    """The user gave something unusable (experiment file, path, option); nothing was written."""


class Failure(Exception):
    """The tooling could not do its job (smrbench capabilities missing, report machinery)."""
