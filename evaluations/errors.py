"""The one domain error type of evaluations, mapped to HTTP once (API views and page views)."""

from __future__ import annotations


class EvaluationError(Exception):
    """A write the rules refuse; `status` is the HTTP status it maps to."""

    status = 400

    def __init__(self, message: str, *, errors: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or {}


class NotAllowed(EvaluationError):
    """The actor's role in the team does not allow this."""

    status = 403


class InvalidTransition(EvaluationError):
    """The evaluation's state does not allow this."""

    status = 400


class EditConflict(EvaluationError):
    """The edit was made on a revision someone else has saved over since."""

    status = 409

    def __init__(self, message: str, *, current_revision: int) -> None:
        super().__init__(message, errors={"revision": [message]})
        self.current_revision = current_revision


class InvalidInput(EvaluationError):
    """The data fails validation; `errors` holds messages per field."""

    status = 400
