"""Errors meant for people: one line, naming the file, the field and what was expected."""


class GatepostError(Exception):
    """Base of every error gatepost reports to a person instead of a traceback."""

    exit_code = 2


class InputError(GatepostError):
    """Bad input: a file, a field or an argument that is not what was expected (exit 2)."""

    exit_code = 2


class StoreError(GatepostError):
    """A store that cannot be used: not SQLite, not gatepost's, or written by a newer gatepost."""

    exit_code = 2


class RefusedError(GatepostError):
    """A decision the rules refuse; nothing was written (exit 3)."""

    exit_code = 3


class ConflictError(RefusedError):
    """The subject changed since the person looked at it; nothing was written (exit 3)."""
