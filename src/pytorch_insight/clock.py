"""Time as a dependency: production uses the system clock, tests advance a fake one."""

import time
from datetime import date, datetime, timezone
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


def utc_today(clock: Clock | None = None) -> date:
    """The clock's current UTC calendar day (windows are UTC days)."""
    return datetime.fromtimestamp((clock or SystemClock()).now(), timezone.utc).date()
