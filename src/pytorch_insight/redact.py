"""Nothing the tool stores or publishes carries a credential. A token pasted into an issue, a
model that echoes its API key, a configured secret that reached a source: `redact` replaces the
configured secrets and anything shaped like a token with REDACTED, and it is the one function
used for source text, model answers, the model cache and the reports. `scrub` applies it (and
`strip_controls`) to every string of a report model."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from pytorch_insight.text import plain_line, strip_controls

REDACTED = "[redacted]"
# The environment variables config.py reads credentials from; a value set in the config file
# (the model's api_key) is registered by whoever reads it (analysis/llm.py).
SECRET_VARIABLES = ("GITHUB_TOKEN", "SLACK_TOKEN", "DISCOURSE_API_KEY", "OPENAI_API_KEY")
# Holding several credentials, separated by commas or white space.
SECRET_LISTS = ("GITHUB_TOKENS",)
# A shorter value is no credential worth hiding and would blank ordinary words: "ollama", the
# placeholder key of a local server, is no secret.
MIN_SECRET = 8
# Tokens that name themselves: GitHub's (classic, fine-grained, OAuth, user-to-server,
# server-to-server, refresh) and Slack's; OpenAI-style `sk-` keys and `Bearer` credentials, which
# ordinary words can resemble ("sk-learn-compatible", "the bearer of"), count only with a digit.
TOKEN = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abeoprs]-[A-Za-z0-9-]{10,}|(?P<key>sk-[\w-]{20,}))"
    r"|\b(?P<scheme>(?i:bearer)[ \t]{1,8})(?P<credential>[\w.~+/-]{16,}=*)"
)
DIGIT = re.compile(r"\d")
# Where a TOKEN match can begin: most text holds none and is passed over after one scan.
TOKEN_START = re.compile(r"gh[pousr]_|github_pat_|xox[abeoprs]-|sk-|(?i:bearer)")
# Whatever `public_text` could change starts with one of these: most strings of a report hold none
# and are passed over after one scan.
SUSPECT = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
    r"|gh[pousr]_|github_pat_|xox[abeoprs]-|sk-|(?i:bearer)"
)
# The same, as a JSON document spells it: C0 controls as escapes (an escape when an even run of
# backslashes precedes it: "\\\\b" is a backslash and a b), the others as they are; and the tokens'
# beginnings. Each pattern starts with a literal or a class, which the regex engine skips to
# without trying every position: a whole report is checked in a few fast scans.
JSON_ESCAPE = re.compile(r"\\(?:u00[01][0-9a-f]|[bfr])")
JSON_RAW_CONTROL = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
TOKEN_HINTS = tuple(
    re.compile(hint) for hint in ("gh[pousr]_", "github_pat_", "xox[abeoprs]-", r"sk-[\w-]{20}", "earer", "EARER")
)

_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """A credential read from somewhere else than SECRET_VARIABLES (a config file)."""
    if value and len(value) >= MIN_SECRET:
        _registered.add(value)


def configured_secrets(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The credentials set now, longest first (so one that holds another is replaced whole)."""
    values = {os.environ.get(name, "") for name in SECRET_VARIABLES} | _registered | set(extra)
    values |= {part for name in SECRET_LISTS for part in os.environ.get(name, "").replace(",", " ").split()}
    return tuple(sorted((value for value in values if len(value) >= MIN_SECRET), key=len, reverse=True))


def _token(match: re.Match[str]) -> str:
    if match["scheme"]:
        return match["scheme"] + REDACTED if DIGIT.search(match["credential"]) else match.group(0)
    if match["key"] and not DIGIT.search(match["key"]):
        return match.group(0)
    return REDACTED


def redactor(extra: Iterable[str] = ()) -> Callable[[str], str]:
    """`redact` with the configured secrets (and `extra`, e.g. a base URL) looked up once, for
    the many strings of one document. An unchanged text comes back as the same object."""
    secrets = configured_secrets(extra)

    def redact_one(text: str) -> str:
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return TOKEN.sub(_token, text)

    return redact_one


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every configured secret, every value of `extra` and every token replaced by REDACTED."""
    return redactor(extra)(text)


def safe_message(text: str, limit: int = 500) -> str:
    """A message that may quote a server (an error body, a source's note) as it reaches the
    terminal, the store and the reports: one plain line, no escape sequence, no credential."""
    return redact(plain_line(text, limit))


def public_text(extra: Iterable[str] = ()) -> Callable[[str], str]:
    """What a string of a report becomes: no control characters or bidirectional overrides, no
    secret. An unchanged text comes back as the same object."""
    redact_one, secrets = redactor(extra), configured_secrets(extra)

    def public(text: str) -> str:
        if SUSPECT.search(text) is None and not (secrets and any(secret in text for secret in secrets)):
            return text
        return redact_one(strip_controls(text))

    return public


Value = TypeVar("Value")
Model = TypeVar("Model", bound=BaseModel)
SCALARS = frozenset({int, float, bool, type(None)})
# A list longer than this is checked one member at a time (scrub_document).
PIECE_MEMBERS = 64


def scrub(value: Value, extra: Iterable[str] = ()) -> Value:
    """`value` (a model, list, dict or string) with every string made public (`public_text`).
    Copy on write: what holds nothing to change is returned as it is, so the pipeline's own
    objects are never modified."""
    return _scrub(value, public_text(extra))


def redact_tokens(value: Value, extra: Iterable[str] = ()) -> Value:
    """`value` with every credential in its strings replaced, and nothing else changed (stored
    text stays as its source wrote it): what the store keeps and `export` writes. A token pasted
    into an issue is redacted in the reports; it must not wait in the database or a JSONL file."""
    return _scrub(value, _token_cleaner(extra))


def redact_models(models: Iterable[Model], extra: Iterable[str] = ()) -> list[Model]:
    """`redact_tokens` for many models (a page of items on its way to the store): each is looked
    for a token's beginning or a secret in its JSON, its excluded fields (an item's payload) and
    extra ones too, in a few fast scans, and walked string by string only when one may be there.
    A page's items hold hundreds of strings each, almost never a token: walking them all was a
    third of a collection's CPU. Nested models are read as they serialize (an item's comments
    and relations exclude no field)."""
    clean = _token_cleaner(extra)
    secrets = [json.dumps(secret, ensure_ascii=False)[1:-1] for secret in configured_secrets(extra)]
    found = []
    for model in models:
        try:
            text = to_json([model.__dict__, model.model_extra]).decode()
        except PydanticSerializationError:  # a lone surrogate: UTF-8 cannot hold it, the walk can
            text = None
        if text is None or TOKEN_START.search(text) or any(secret in text for secret in secrets):
            found.append(_scrub(model, clean))
        else:
            found.append(model)
    return found


def _token_cleaner(extra: Iterable[str]) -> Callable[[str], str]:
    redact_one, secrets = redactor(extra), configured_secrets(extra)

    def clean(text: str) -> str:
        if TOKEN_START.search(text) is None and not any(secret in text for secret in secrets):
            return text
        return redact_one(text)

    return clean


def scrub_document(document: Model, extra: Iterable[str] = ()) -> Model:
    """`scrub` for a whole report. A report with nothing to change, the usual case, is recognised
    from its JSON in a few scans and returned as it is; walking its hundreds of thousands of
    strings one by one would cost more than rendering it."""
    secrets = [json.dumps(secret, ensure_ascii=False)[1:-1] for secret in configured_secrets(extra)]
    try:
        for piece in _json_pieces(document):
            text = piece.decode()
            if (
                _json_has_control(text)
                or any(hint.search(text) for hint in TOKEN_HINTS)
                or any(secret in text for secret in secrets)
            ):
                return scrub(document, extra)
    except PydanticSerializationError:  # a lone surrogate: UTF-8 cannot hold it, the walk removes it
        return scrub(document, extra)
    return document


def _json_pieces(value: Any) -> Iterator[bytes]:
    """The JSON of `value` in pieces no larger than one member of a long list (a report's item, an
    activity row): the whole text of a window's report is several times its items' size in memory
    (one emoji in it makes every character four bytes). Nothing the scans look for spans two
    pieces: a hint or an escape lies inside one string."""
    if _holds_long_list(value):
        members = value if isinstance(value, list) else [field for _, field in value]
        for member in members:
            yield from _json_pieces(member)
    else:
        yield to_json(value)


def _holds_long_list(value: Any) -> bool:
    if isinstance(value, list):
        return len(value) > PIECE_MEMBERS or any(_holds_long_list(member) for member in value)
    return isinstance(value, BaseModel) and any(_holds_long_list(field) for _, field in value)


def _json_has_control(text: str) -> bool:
    if JSON_RAW_CONTROL.search(text):
        return True
    for escape in JSON_ESCAPE.finditer(text):
        first = escape.start()
        while first and text[first - 1] == "\\":  # the backslashes before it
            first -= 1
        if (escape.start() - first) % 2 == 0:
            return True
    return False


def _scrub(value: Any, clean: Callable[[str], str]) -> Any:
    kind = type(value)
    if kind is str:  # not a StrEnum: a status stays a status
        return clean(value)
    if kind in SCALARS:
        return value
    if isinstance(value, BaseModel):
        changed = {}
        for name, old in value.__dict__.items():  # the fields, read without a getattr each
            new = clean(old) if type(old) is str else old if type(old) in SCALARS else _scrub(old, clean)
            if new is not old:
                changed[name] = new
        extra = value.model_extra
        if extra:
            changed.update({name: new for name, old in extra.items() if (new := _scrub(old, clean)) is not old})
        return value.model_copy(update=changed) if changed else value
    if kind is list or kind is tuple:
        items = [_scrub(item, clean) for item in value]
        return kind(items) if any(new is not old for new, old in zip(items, value, strict=True)) else value
    if kind is dict:
        pairs = [(_scrub(key, clean), _scrub(item, clean)) for key, item in value.items()]
        if any(k is not old_k or v is not old_v for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)):
            return dict(pairs)
        return value
    return value
