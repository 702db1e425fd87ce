from datetime import date, datetime, timezone

import pytest

from pytorch_insight.clock import utc_today
from pytorch_insight.errors import ConfigError
from pytorch_insight.window import Window, make_window, parse_timestamp


def test_default_window_is_the_seven_days_ending_yesterday() -> None:
    window = make_window(None, None, today=date(2026, 4, 21))
    assert (window.since, window.until) == (date(2026, 4, 14), date(2026, 4, 20))


def test_both_ends_are_inclusive_whole_utc_days() -> None:
    window = make_window("2026-04-07", "2026-04-07")
    assert window.contains(datetime(2026, 4, 7, 0, 0, tzinfo=timezone.utc))
    assert window.contains(datetime(2026, 4, 7, 23, 59, 59, tzinfo=timezone.utc))
    assert not window.contains(datetime(2026, 4, 8, 0, 0, tzinfo=timezone.utc))
    assert not window.contains(None)


@pytest.mark.parametrize(
    ("since", "until", "message"),
    [
        ("2026-13-01", "2026-04-20", "--since must be a date"),
        ("2026-04-07", "yesterday", "--until must be a date"),
        ("2026-04-21", "2026-04-20", "is after --until"),
    ],
)
def test_bad_dates_are_config_errors(since: str, until: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_window(since, until)


def test_split_covers_the_window_without_overlap() -> None:
    first, second = Window(date(2026, 4, 7), date(2026, 4, 20)).split()
    assert (first.since, first.until, second.since, second.until) == (
        date(2026, 4, 7),
        date(2026, 4, 13),
        date(2026, 4, 14),
        date(2026, 4, 20),
    )


def test_timestamps_accept_github_times_and_bare_dates() -> None:
    assert parse_timestamp("2026-04-07T12:00:00Z") == datetime(2026, 4, 7, 12, tzinfo=timezone.utc)
    assert parse_timestamp("2026-04-07") == datetime(2026, 4, 7, tzinfo=timezone.utc)
    assert parse_timestamp("soon") is None


def test_a_window_may_end_today_but_not_later() -> None:
    today = date(2026, 4, 21)
    assert make_window("2026-04-15", "2026-04-21", today=today).until == today
    with pytest.raises(ConfigError, match=r"^--until 2026-04-22 is in the future \(today is 2026-04-21 UTC\)$"):
        make_window("2026-04-15", "2026-04-22", today=today)


def test_today_is_the_clocks_utc_day() -> None:
    class LateEvening:  # 2026-04-21 23:30 UTC: still the 21st in UTC, whatever the local zone says
        def now(self) -> float:
            return datetime(2026, 4, 21, 23, 30, tzinfo=timezone.utc).timestamp()

        def sleep(self, seconds: float) -> None:
            pass

    assert utc_today(LateEvening()) == date(2026, 4, 21)


@pytest.mark.parametrize(
    ("since", "until", "message"),
    [
        ("0001-01-01", "2026-04-20", "--since 0001-01-01 is too early"),
        (None, "0001-01-01", "--until 0001-01-01 is too early"),
        ("2026-04-07", "9999-12-31", "--until 9999-12-31 is in the future"),
        (None, "9999-12-31", "--until 9999-12-31 is in the future"),
        ("9999-12-31", None, "--since 9999-12-31 is after --until 2026-04-20"),
    ],
)
def test_the_ends_of_the_calendar_are_config_errors_not_overflows(
    since: str | None, until: str | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        make_window(since, until, today=date(2026, 4, 21))


def test_the_default_window_never_starts_before_the_earliest_day() -> None:
    window = make_window(None, "1970-01-02", today=date(2026, 4, 21))
    assert (window.since, window.until) == (date(1970, 1, 1), date(1970, 1, 2))
