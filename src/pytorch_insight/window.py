"""The collection window: whole UTC calendar days, both ends inclusive."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from pytorch_insight.clock import utc_today
from pytorch_insight.errors import ConfigError

DEFAULT_DAYS = 7
# The earliest first day of a window. The code steps a few days around a window (the store's
# search margin, the default window's start), which overflows at date.min; no source has
# activity before the Unix epoch anyway.
EARLIEST = date(1970, 1, 1)


@dataclass(frozen=True)
class Window:
    since: date
    until: date

    @property
    def start(self) -> datetime:
        return datetime.combine(self.since, time.min, tzinfo=timezone.utc)

    @property
    def end(self) -> datetime:
        """First instant after the window (exclusive bound)."""
        return datetime.combine(self.until + timedelta(days=1), time.min, tzinfo=timezone.utc)

    @property
    def label(self) -> str:
        return f"{self.since.isoformat()}_{self.until.isoformat()}"

    def contains(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end

    def split(self) -> tuple["Window", "Window"]:
        """Two halves of a multi-day window (used when a search result is too large)."""
        days = (self.until - self.since).days
        middle = self.since + timedelta(days=days // 2)
        return Window(self.since, middle), Window(middle + timedelta(days=1), self.until)


def parse_day(text: str, name: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{name} must be a date like 2026-04-07, got {text!r}") from None


def make_window(since: str | None, until: str | None, today: date | None = None) -> Window:
    """Build a window from optional CLI strings; the default is the 7 days ending yesterday.

    A window may end today (a partial day) but not later: nothing has happened there yet."""
    today = today or utc_today()
    end = parse_day(until, "--until") if until else today - timedelta(days=1)
    if end > today:
        raise ConfigError(f"--until {end} is in the future (today is {today} UTC)")
    if end < EARLIEST:
        raise ConfigError(f"--until {end} is too early: windows start on {EARLIEST} or later")
    start = parse_day(since, "--since") if since else max(EARLIEST, end - timedelta(days=DEFAULT_DAYS - 1))
    if start < EARLIEST:
        raise ConfigError(f"--since {start} is too early: windows start on {EARLIEST} or later")
    if start > end:
        raise ConfigError(f"--since {start} is after --until {end}")
    return Window(start, end)


def day_range(since: str | None, until: str | None, today: date | None = None) -> tuple[date | None, date | None]:
    """Optional first and last days (both inclusive), checked as a window's are: neither in the
    future, the first not after the last. Either may be left open."""
    today = today or utc_today()
    first = parse_day(since, "--since") if since else None
    last = parse_day(until, "--until") if until else None
    for name, day in (("--since", first), ("--until", last)):
        if day is not None and day > today:
            raise ConfigError(f"{name} {day} is in the future (today is {today} UTC)")
    if first and last and first > last:
        raise ConfigError(f"--since {first} is after --until {last}")
    return first, last


def github_time(moment: datetime) -> str:
    """The ``2026-04-07T00:00:00Z`` form GitHub's query parameters take."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(text: str | None) -> datetime | None:
    """GitHub-style ISO 8601 (``2026-04-07T12:00:00Z``) or a bare date, as an aware datetime."""
    if not text or not isinstance(text, str):  # a server may send a number or an object there
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        # A moment that cannot be put in UTC (9999-12-31T23:59:59-14:00) is no usable date: every
        # comparison and every stored stamp would overflow on it later, far from its source.
        moment.astimezone(timezone.utc)
    except (ValueError, TypeError, OverflowError):
        return None
    return moment
