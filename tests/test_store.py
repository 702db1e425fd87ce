from collections.abc import Iterator
from pathlib import Path

import pytest

from pytorch_insight.errors import StoreError
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Comment, CoverageStatus, Item, SourceStatus
from pytorch_insight.schema import MIGRATIONS
from pytorch_insight.store import Store


def issue(number: int, comments: list[Comment] | None = None, **fields: object) -> Item:
    fields.setdefault("created", "2026-04-08T12:00:00Z")
    return Item(
        id=f"github:o/r#{number}",
        source="github",
        kind="issue",
        repo="o/r",
        number=number,
        title=f"issue {number}",
        comments=comments or [],
        raw={"number": number},
        **fields,
    )


@pytest.fixture
def store(any_db: str) -> Iterator[Store]:
    """A new store on SQLite, then on PostgreSQL: every test using it runs on both."""
    opened = Store.open(any_db)
    yield opened
    opened.close()


def test_migrations_are_named_recorded_and_applied_once(any_db: str) -> None:
    first = Store.open(any_db)
    assert first.applied_migrations() == [name for name, _ in MIGRATIONS]
    assert Store.open(any_db).migrate() == []


def test_upsert_is_idempotent_and_keeps_the_raw_payload(store: Store) -> None:
    store.save_items([issue(1), issue(2)])
    store.save_items([issue(1, state="closed"), issue(2)])
    assert store.count_items() == 2
    assert store.get_items(["github:o/r#1"])["github:o/r#1"].state == "closed"
    assert store.get_payload("github:o/r#1") == {"number": 1}


def test_a_later_save_without_comments_never_drops_stored_ones(store: Store) -> None:
    thread = [Comment(id=10, author="a", date="2026-04-08T13:00:00Z", body="first")]
    store.save_items([issue(1, thread)])
    store.save_items([issue(1)])
    store.save_items([issue(1, [Comment(id=11, author="b", date="2026-04-09T13:00:00Z", body="second")])])
    stored = store.get_items(["github:o/r#1"])["github:o/r#1"]
    assert [c.body for c in stored.comments] == ["first", "second"]


def test_an_item_read_back_leaves_its_empty_fields_to_their_defaults(store: Store) -> None:
    store.save_items([issue(1, labels=["bug"])])
    stored = store.get_items(["github:o/r#1"])["github:o/r#1"]
    assert stored == issue(1, labels=["bug"]).model_copy(update={"raw": None})
    # Given fields are remembered per item (memory the report pays for each); the empty ones are not given.
    assert {"labels", "title", "created"} <= stored.model_fields_set
    assert not {"comments", "relations", "merged", "comment_count"} & stored.model_fields_set


def test_a_failing_batch_leaves_nothing_half_written(store: Store) -> None:
    poisoned = issue(2).model_copy(update={"raw": {"bad": object()}})  # not JSON-serialisable
    with pytest.raises((StoreError, TypeError)):
        store.save_items([issue(1), poisoned])
    assert store.count_items() == 0


def test_runs_and_source_status_are_recorded(store: Store) -> None:
    run = store.start_run("collect", "pytorch", "2026-04-07", "2026-04-20", {"sources": ["github"]})
    status = SourceStatus(
        name="github", status=CoverageStatus.PARTIAL, items=3, requests=9, not_modified=2, note="limit"
    )
    store.save_source_status(run, status, "2026-04-07", "2026-04-20")
    store.finish_run(run, "partial", 9, "github: limit")
    [row] = store.runs()
    assert (row["status"], row["requests"], row["since"], row["arguments"]) == (
        "partial",
        9,
        "2026-04-07",
        {"sources": ["github"]},
    )
    assert store.source_statuses(run) == [status]


def test_validators_are_stored_per_url(store: Store) -> None:
    store.put_cached("http://x/a", CachedPage("[1]", {"next": "http://x/a?page=2"}, 'W/"e1"', None))
    store.put_cached("http://x/a", CachedPage("[2]", {}, 'W/"e2"', "Mon, 06 Apr 2026 00:00:00 GMT"))
    cached = store.get_cached("http://x/a")
    assert cached is not None and (cached.body, cached.etag, cached.links) == ("[2]", 'W/"e2"', {})
    assert store.get_cached("http://x/b") is None


def test_unusable_database_paths_are_store_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot create the database folder"):
        Store.open(str(blocker / "sub" / "insight.db"))
    with pytest.raises(StoreError, match="cannot open database"):
        Store.open(str(tmp_path))  # a directory, not a database file
    with pytest.raises(StoreError, match="cannot use database"):
        Store.open("nosuchdialect://x")


def test_a_database_from_the_first_release_is_upgraded_in_place(any_db: str) -> None:
    from sqlalchemy import create_engine, insert, text

    from pytorch_insight.schema import schema_migrations
    from pytorch_insight.store import database_url

    engine = create_engine(database_url(any_db))
    schema_migrations.create(engine)
    with engine.begin() as connection:
        MIGRATIONS[0][1](connection)
        connection.execute(
            insert(schema_migrations).values(name=MIGRATIONS[0][0], applied_at="2026-04-01T00:00:00+00:00")
        )
        connection.execute(
            text(
                "INSERT INTO items (id, source, kind, created, data, stored_at) VALUES "
                "('github:o/r#1', 'github', 'issue', '2026-03-01', :data, 'then')"
            ),
            {
                "data": '{"id": "github:o/r#1", "source": "github", "kind": "issue", "created": "2026-03-01", '
                '"closed": "2026-04-10T18:00:00Z"}'
            },
        )
    engine.dispose()
    store = Store.open(any_db)
    assert store.applied_migrations() == [name for name, _ in MIGRATIONS]
    from pytorch_insight.window import make_window

    assert [item.id for item in store.items_in_window(make_window("2026-04-07", "2026-04-13"))] == ["github:o/r#1"]


def test_items_in_window_selects_created_closed_or_merged_in_it(store: Store) -> None:
    from pytorch_insight.window import make_window

    store.save_items(
        [
            issue(1),  # created in the window
            issue(2, created="2026-03-01T12:00:00Z", closed="2026-04-13T23:59:59Z"),  # closed on its last day
            issue(3, created="2026-03-01T12:00:00Z", closed="2026-04-14T00:00:00Z"),  # closed the day after
            issue(4, created="2026-04-06T23:59:59Z"),  # the day before
            issue(5, created="2026-03-01", merged="2026-04-07"),  # merged on the first day
        ]
    )
    found = [item.number for item in store.items_in_window(make_window("2026-04-07", "2026-04-13"))]
    assert found == [1, 2, 5]
