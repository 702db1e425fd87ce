"""One exception hierarchy, so callers can catch failures by meaning."""

from pydantic import ValidationError


class InsightError(Exception):
    """Anything the user can act on; the CLI prints it as one line."""


class ConfigError(InsightError):
    """Bad dates, unknown profile, unreadable config file."""


class StoreError(InsightError):
    """The database cannot be opened or written."""


class NoItemsError(InsightError):
    """A report was asked for a window the store holds nothing of."""


class ImportFormatError(InsightError):
    """A JSONL file that cannot be read at all."""


class RemoteError(InsightError):
    """A remote service failed; `status` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientError(RemoteError):
    """Worth retrying: 5xx, connection errors, timeouts, truncated bodies."""


class Throttled(RemoteError):
    """Told to slow down for `retry_after` seconds; retried after that wait."""

    def __init__(self, message: str, retry_after: float, status: int | None = None) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


class RateLimited(RemoteError):
    """The request budget is spent and resets later than we are willing to wait."""

    def __init__(self, message: str, reset_at: float | None = None) -> None:
        super().__init__(message, 403)
        self.reset_at = reset_at


class Unauthorized(RemoteError):
    """The credential was rejected (401)."""


class NotFound(RemoteError):
    """The resource does not exist (404), e.g. an unknown repository."""


def describe_validation_error(error: ValidationError) -> str:
    """The first problem of a pydantic error as ``at field.path: message``."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"at {where}: {first['msg']}"
