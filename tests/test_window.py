from datetime import date, datetime, timezone

import pytest

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
