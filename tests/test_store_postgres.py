"""What only PostgreSQL does differently: locale collations, NUL in text, a server that refuses
writes, and database URLs that carry a password. (The other store tests run on it too.)"""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, insert, text
from sqlalchemy.exc import DBAPIError

from pytorch_insight.errors import StoreError
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Item
from pytorch_insight.schema import items
from pytorch_insight.store import LLMLedger, Store, shown_db
from pytorch_insight.window import make_window
from tests.servers import PostgresServer, free_port

# Sorted by code point, as SQLite sorts them; an English collation would put "O/r" among the "o/r"s
# and compare "#10" with "#9" ignoring the punctuation.
IDS = [
    "forum:a/t/1",
    "github:O/r#3",
    "github:o/r#1",
    "github:o/r#10",
    "github:o/r#9",
    "github:o/r-x#2",
    "github:o/r/a",
    "github:o/r2#1",
]


def item(item_id: str, **fields: object) -> Item:
    return Item(id=item_id, source="github", kind="issue", created="2026-04-08T12:00:00Z", **fields)


def test_ids_come_in_code_point_order_whatever_the_database_locale(postgres_server: PostgresServer) -> None:
    name = "insight_test_icu"
    try:
        db = postgres_server.database(name, "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'")
    except DBAPIError as exc:
        pytest.skip(f"this PostgreSQL has no ICU collations: {exc.orig}")
    try:
        store = Store.open(db)
        store.save_items([item(item_id) for item_id in reversed(IDS)])
        with store.engine.connect() as connection:  # the database itself sorts differently
            assert connection.scalars(text("SELECT id FROM items ORDER BY id")).all() != IDS
        assert [i.id for i in store.iter_items()] == IDS
        assert [i.id for i in store.items_in_window(make_window("2026-04-08", "2026-04-08"))] == IDS
        store.close()
    finally:
        postgres_server.drop(name)


def test_text_with_nul_characters_is_stored(any_db: str) -> None:
    """PostgreSQL text cannot hold NUL: the columns go without it, the item keeps it."""
    store = Store.open(any_db)
    for _ in range(2):  # inserted, then updated
        store.save_items([item("github:o/r#1", title="a\x00b", author="x\x00", raw={"title": "a\x00b"})])
    store.put_cached("http://x/\x00", CachedPage("[\x00]", {"next": "http://x/2"}, 'W/"\x00"', None))

    [found] = store.items_in_window(make_window("2026-04-08", "2026-04-08"))
    assert (found.title, found.author) == ("a\x00b", "x\x00")
    assert store.get_payload("github:o/r#1") == {"title": "a\x00b"}
    cached = store.get_cached("http://x/\x00")
    assert cached is not None and cached.body in {"[\x00]", "[]"} and cached.links == {"next": "http://x/2"}


def test_a_read_only_store_is_refused_writes_by_the_server_too(postgres_url: str) -> None:
    Store.open(postgres_url).close()
    reader = Store.open(postgres_url, readonly=True)
    with pytest.raises(DBAPIError, match="read-only transaction"):
        with reader.engine.begin() as connection:  # past the store's own check, straight to the server
            connection.execute(insert(items).values(id="x", source="s", kind="k", data={}, stored_at="now"))
    assert reader.count_items() == 0


def test_an_empty_database_read_only_is_one_error_naming_it_without_its_password(postgres_url: str) -> None:
    password = create_engine(postgres_url).url.password
    with pytest.raises(StoreError) as error:
        Store.open(postgres_url, readonly=True)
    message = str(error.value)
    assert "has no pytorch-insight tables" in message and ":***@" in message and str(password) not in message


@pytest.mark.parametrize("fault", ["password", "database", "port"])
def test_a_database_that_cannot_be_opened_is_one_line_without_the_password(
    postgres_server: PostgresServer, fault: str
) -> None:
    url = postgres_server.url
    secret = "s3cret-Pa55word"
    if fault == "password":
        url = url.set(password=secret)
    elif fault == "database":
        url = url.set(database="no_such_database")
    else:
        url = url.set(port=free_port())
    db = url.render_as_string(hide_password=False)
    password = str(url.password)

    for readonly in (False, True):
        with pytest.raises(StoreError) as error:
            Store.open(db, readonly=readonly)
        message = str(error.value)
        assert message.startswith("cannot open database 'postgresql+psycopg://insight:***@127.0.0.1:"), message
        assert "\n" not in message and password not in message and secret not in message


def test_shown_database_urls_mask_every_password() -> None:
    assert shown_db("/data/insight.db") == "/data/insight.db"
    assert shown_db("postgresql+psycopg://u:p%40ss@h:5432/d") == "postgresql+psycopg://u:***@h:5432/d"
    assert shown_db("postgresql+psycopg://u@h/d?password=pw&sslmode=require") == (
        "postgresql+psycopg://u@h/d?password=***&sslmode=require"
    )
    assert shown_db("postgresql+psycopg://u:pw@h:notaport/d") == "postgresql+psycopg://u:***@h:notaport/d"


def test_a_malformed_database_url_is_one_error_without_its_password() -> None:
    with pytest.raises(StoreError) as error:
        Store.open("postgresql+psycopg://u:s3cret-Pa55word@h:notaport/d")
    assert str(error.value).startswith("cannot use database 'postgresql+psycopg://u:***@h:notaport/d'")
    assert "s3cret" not in str(error.value)


def test_the_model_ledger_caches_answers_and_logs_calls(any_db: str) -> None:
    ledger = LLMLedger(Store.open(any_db))
    ledger.remember("k" * 64, "m", "first", 10, 2)
    ledger.remember("k" * 64, "m", "second", 11, 3)  # the same key again: replaced, not duplicated
    for outcome in ("ok", "error: Timeout"):
        ledger.log("m", "k" * 64, "analysis", 10, 2, 1500, outcome)

    cached = ledger.cached("k" * 64)
    assert cached is not None and (cached["answer"], cached["tokens_in"], cached["tokens_out"]) == ("second", 11, 3)
    assert ledger.cached("x" * 64) is None
    assert [(call["id"], call["outcome"]) for call in ledger.calls()] == [(1, "ok"), (2, "error: Timeout")]
