"""redact(): configured secrets and anything shaped like a token become [redacted]; ordinary words
that merely look a little like one stay. strip_controls(): controls and bidi overrides go."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from pytorch_insight import redact as redact_module
from pytorch_insight.model import Comment, CoverageStatus, Item, SourceStatus
from pytorch_insight.redact import REDACTED, redact, redact_models, register_secret, scrub, scrub_document
from pytorch_insight.text import strip_controls

TOKENS = [
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "ghu_16C7e42F292c6912E7710c838347Ae178B4a",
    "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
    "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    "xoxp-2376223784-2376223785-2378931190-abcdef0123456789",
    "sk-proj-4fQ9xT2mL8vN1bR6kW3yZ7cH0dJ5gP",
    "sk-ant-api03-AbCdEf0123456789GhIjKl",
]


@pytest.mark.parametrize("token", TOKENS, ids=lambda token: token[:8])
def test_a_token_anywhere_in_a_text_is_redacted(token: str) -> None:
    assert redact(f"run with `{token}` to see it") == f"run with `{REDACTED}` to see it"
    assert redact(f"TOKEN={token}\nnext") == f"TOKEN={REDACTED}\nnext"


def test_a_bearer_credential_is_redacted_and_the_scheme_kept() -> None:
    text = "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl' url"
    assert redact(text) == f"curl -H 'Authorization: Bearer {REDACTED}' url"
    assert redact("authorization: bearer 0123456789abcdefXYZ") == f"authorization: bearer {REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "the sk-learn-compatible-estimator-wrapper API",
        "the bearer of responsibilities-for-everything",
        "ghp_short and xoxb- and github_pat_",
        "a ghp_ prefix inside my_ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "torch._inductor.config.autotune_local_cache = False",
    ],
)
def test_words_that_only_resemble_a_token_stay(text: str) -> None:
    assert redact(text) == text


def test_configured_secrets_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "plain-secret-value-1")
    monkeypatch.setenv("SLACK_TOKEN", "short")  # too short to be a credential: ordinary words stay
    monkeypatch.setattr(redact_module, "_registered", set())
    register_secret("configured-model-key-2")
    assert redact("a plain-secret-value-1 and configured-model-key-2 and short") == (
        f"a {REDACTED} and {REDACTED} and short"
    )
    assert redact("at http://localhost:8080/v1 now", extra=["http://localhost:8080/v1"]) == f"at {REDACTED} now"


def test_items_on_their_way_to_the_store_lose_tokens_wherever_they_hide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", 'quote"and\\backslash-secret')  # JSON escapes both
    monkeypatch.setattr(redact_module, "_registered", set())
    token = TOKENS[0]

    def item(number: int, **fields: object) -> Item:
        return Item(id=f"github:o/r#{number}", source="github", kind="issue", repo="o/r", number=number, **fields)

    clean = item(1, title="fine", comments=[Comment(author="a", body="nothing here")], raw={"body": "plain"})
    in_payload = item(2, title="fine", raw={"body": f"see {token}"})  # only in the excluded payload
    in_extra = item(3, title="fine", mirror=f"Bearer 0123456789abcdefXYZ {token}")
    in_comment = item(4, comments=[Comment(author="a", body='uses quote"and\\backslash-secret')])
    found = redact_models([clean, in_payload, in_extra, in_comment])
    assert found[0] is clean  # nothing to change: the same object, no walk
    assert found[1].raw == {"body": f"see {REDACTED}"}
    assert found[2].model_extra == {"mirror": f"Bearer {REDACTED} {REDACTED}"}
    assert found[3].comments[0].body == f"uses {REDACTED}"


def test_control_characters_and_bidi_overrides_are_stripped() -> None:
    text = "a\x00b\x1b[31mc\x7fd\x85e\u202efdp.exe\u2066g\u2069h\u200ei\u200fj\r\nk\rl\tm\u200dn"
    assert strip_controls(text) == "ab[31mcdefdp.exeghij\nk\nl\tm\u200dn"  # ZWJ joins emoji: it stays


def test_scrub_copies_only_what_changes_and_keeps_enums() -> None:
    # Built without validation: a note is made plain when a status is made; scrub must not rely on it.
    status = SourceStatus.model_construct(name="github", status=CoverageStatus.OK, note=f"token {TOKENS[0]}\x1b")
    clean = SourceStatus(name="forum", status="partial", note="fine")
    scrubbed = scrub([status, clean])
    assert scrubbed[0].note == f"token {REDACTED}" and status.note.startswith("token ghp_")  # the original stays
    assert scrubbed[0].status is status.status and scrubbed[1] is clean
    nested = {"key": [("a", f"x {TOKENS[6]}")], "n": 3}
    assert scrub(nested) == {"key": [("a", f"x {REDACTED}")], "n": 3}


DIRTY = [chr(code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]]
DIRTY += [*"\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ud800\ufffe", *TOKENS]
DIRTY += ["Bearer abcdef0123456789xyz", "bearer abcdef0123456789xyz"]


@pytest.mark.parametrize("dirty", DIRTY, ids=lambda dirty: repr(dirty[:8]))
def test_a_document_with_anything_to_scrub_is_scrubbed(dirty: str) -> None:
    """scrub_document's quick look at the JSON misses nothing that scrub would change."""
    status = SourceStatus(name="github", status="ok", note=f"a {dirty} b")
    assert dirty not in scrub_document(status).note


@pytest.mark.parametrize(
    "text", ["regex \\bfoo\\r and \\u001b as text", "a\tb\nc", "日本語 ✓ 🙂", "task-queue-dispatcher"]
)
def test_a_clean_document_is_returned_as_it_is(text: str) -> None:
    status = SourceStatus(name="github", status="ok", note=text)
    assert scrub_document(status) is status


class _Row(BaseModel):
    text: str


class _Page(BaseModel):
    rows: list[_Row]


@pytest.mark.parametrize("dirty", DIRTY, ids=lambda dirty: repr(dirty[:8]))
def test_a_long_document_is_checked_a_member_at_a_time_and_misses_nothing(dirty: str) -> None:
    """A window's report is checked in pieces (one item at a time), not as one JSON text; what
    one member of a long list holds is found all the same."""
    rows = [_Row(text=f"🙂 clean {n}") for n in range(200)]
    page = _Page(rows=[*rows[:137], _Row(text=f"a {dirty} b"), *rows[137:]])
    assert dirty not in scrub_document(page).rows[137].text
    clean = _Page(rows=rows)
    assert scrub_document(clean) is clean
