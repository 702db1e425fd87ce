"""Severity learned from a project's own triage: text -> class probabilities, and the sentence that
weighs most for each class.

The model is linear (word and word-pair tf-idf, one logistic regression per class, each with its own
Platt scaling), trained by `pytorch_insight.learn` on issues the project's triagers labelled and
shipped as a small JSON file beside this package (its weights packed as binary: `packed`).
Reading it is pure Python: one pass over an item's tokens, so the stage stays linear in the
window, and nothing here touches the network or imports the training code.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

import numpy

from pytorch_insight.disclosure import unsaid
from pytorch_insight.errors import ConfigError
from pytorch_insight.guard import guard
from pytorch_insight.pickling import by_fields
from pytorch_insight.text import BOILERPLATE, lead_in

# What the model reads of an item: the title and the beginning of the description, where a report
# states its problem (on the corpus's time split 600 characters read better than 1,200 or 400, and
# the corpus shows at most ~1,200 of each thread).
TEXT_LIMIT = 600
# How much of a description is cleaned (boilerplate and environment dump cut away) before a model
# reads it: no model may read further than this, or it would read less than its file says.
READ_AHEAD = 4 * TEXT_LIMIT
# A word, or a number (its group empty: a number reads as `0`).
TOKEN = re.compile(r"([a-z][a-z0-9_]*)|\d+(?:\.\d+)?")
# Environment dumps say what was installed, not what happened (`[pip3] nvidia-nccl...`).
ENVIRONMENT = re.compile(
    r"(?ims)^\s{0,3}(?:#{1,6}\s*)?(?:(?:versions?|environment|collect_env|collecting environment information)\b|"
    r"pytorch version:)[^\n]*(?:\n.*)?\Z"
)
# 2: the weights are packed (`packed`). A file of 1, its weights written as numbers (one a user
# fitted before), is still read.
FORMAT_VERSION = 2
LISTED_FORMAT = 1
# How the weights are packed: little-endian float64, the value each had when fitted.
PACKED_DTYPE = "<f8"
PACKAGED = "severity.json.gz"
MODEL_ENV = "PYTORCH_INSIGHT_SEVERITY_MODEL"
Parsed = TypeVar("Parsed")


def read_body(body: str | None, limit: int = TEXT_LIMIT) -> str:
    """The description as the model reads it: up to its environment dump, cut at `limit`."""
    return _before_environment(body or "")[:limit]


# The model reads a description, and its evidence is quoted from a longer cut of the same one. A
# ghstack's list of its members, a cc list of people and the merge bot's lines say nothing of what
# happens, and a stack's list alone can fill the part of a PR's description the model reads.
@lru_cache(maxsize=16)
def _before_environment(body: str) -> str:
    head = body[:READ_AHEAD]
    if guard(BOILERPLATE).may_match(head):
        head = BOILERPLATE.sub(unsaid, head).lstrip()
    return ENVIRONMENT.sub("", head) if guard(ENVIRONMENT).may_match(head) else head


def model_text(title: str | None, body: str | None, limit: int = TEXT_LIMIT) -> str:
    """The text a model is trained on and reads: title, then the description up to its environment dump."""
    return f"{title or ''}\n{read_body(body, limit)}"


def tokens(text: str) -> list[str]:
    """Lower-cased words (numbers as `0`: the magnitude is read elsewhere; its presence is what counts)."""
    return [word or "0" for word in TOKEN.findall(text.lower())]


def terms(title: str | None, body: str | None, extra: Iterable[str] = (), limit: int = TEXT_LIMIT) -> list[str]:
    """The model's features of one item: body words and word pairs (of the first `limit` characters),
    title words marked as such (a title says what the thread is about), and `extra` tags such as the
    facts the rules read."""
    words = tokens(model_text(title, body, limit))
    found = words + _pairs(words)
    found += map("t:".__add__, tokens(title or ""))
    found += extra
    return found


def _pairs(words: list[str]) -> list[str]:
    """Each word with the next, as "a b"."""
    return list(map(" ".join, zip(words, words[1:], strict=False)))


@by_fields
@dataclass(frozen=True, slots=True)
class Judgement:
    probabilities: dict[str, float]
    evidence: dict[str, str]  # class -> the sentence of the item that weighs most for it

    def p(self, name: str) -> float:
        return self.probabilities.get(name, 0.0)


@dataclass(frozen=True)
class SeverityModel:  # cached_property needs the instance __dict__ a frozen dataclass keeps
    classes: tuple[str, ...]
    index: dict[str, int]  # term -> column
    # Lists when fitted, arrays once read: 21,000 terms x 10 classes as Python floats cost ~8 MB a
    # model, as one array ~2 MB.
    idf: list[float] | numpy.ndarray
    coef: list[list[float]] | numpy.ndarray  # one row per class
    intercept: list[float]
    platt: list[tuple[float, float]]  # a, b per class: p = 1 / (1 + exp(-(a * margin + b)))
    card: dict
    text_limit: int = TEXT_LIMIT  # how much of a description it was trained on, and so reads

    @classmethod
    def from_dict(cls, data: dict) -> SeverityModel:
        if (found := data.get("format")) not in (LISTED_FORMAT, FORMAT_VERSION):
            refit = "refit it: pytorch-insight learn"
            raise ConfigError(f"severity model format {found!r} is not {FORMAT_VERSION} ({refit})")
        weights = listed if found == LISTED_FORMAT else unpacked
        vocabulary, classes = data["terms"], tuple(data["classes"])
        return cls(
            classes=classes,
            index={term: n for n, term in enumerate(vocabulary)},
            idf=weights(data["idf"], len(vocabulary)),
            coef=weights(data["coef"], len(classes) * len(vocabulary)).reshape(len(classes), -1),
            intercept=data["intercept"],
            platt=[tuple(pair) for pair in data["platt"]],  # type: ignore[misc]
            card=data.get("card", {}),
            text_limit=_text_limit(data.get("text_limit", TEXT_LIMIT)),
        )

    def to_dict(self) -> dict:
        vocabulary = sorted(self.index, key=self.index.__getitem__)
        return {
            "format": FORMAT_VERSION,
            "classes": list(self.classes),
            "terms": vocabulary,
            "idf": packed(self.idf),
            "coef": packed(self.coef),
            "intercept": self.intercept,
            "platt": [list(pair) for pair in self.platt],
            "card": self.card,
            "text_limit": self.text_limit,
        }

    @cached_property
    def _matrix(self) -> numpy.ndarray:
        return numpy.asarray(self.coef, dtype=numpy.float64).reshape(len(self.classes), len(self.idf))

    @cached_property
    def _idf(self) -> numpy.ndarray:
        return numpy.asarray(self.idf, dtype=numpy.float64)

    @cached_property
    def _intercept(self) -> numpy.ndarray:
        return numpy.asarray(self.intercept)

    @cached_property
    def _pair_index(self) -> dict[tuple[str, ...], int]:
        """The columns of word pairs by their two words: a pair is looked up without being written
        out as "a b" (a new string to hash for each pair of each text)."""
        return {tuple(term.split(" ")): column for term, column in self.index.items() if term.count(" ") == 1}

    @cached_property
    def _title_index(self) -> dict[str, int]:
        """The columns of title words ("t:word") by the word."""
        return {term[2:]: column for term, column in self.index.items() if term.startswith("t:")}

    def _term_columns(self, title: str | None, body: str | None, extra: Iterable[str]) -> list[int | None]:
        """The column of each of `terms(title, body, extra)`, in their order (None: a term it does not know)."""
        # The text read is the title's words then the description's (no token runs across the line
        # break between them), so the description's part is looked up once per distinct description.
        heading = tokens(title or "")
        described, words, pairs = self._description_columns(body or "")
        found = [
            *map(self.index.get, heading),
            *words,
            *map(self._pair_index.get, zip(heading, heading[1:], strict=False)),
        ]
        if heading and described:
            found.append(self._pair_index.get((heading[-1], described[0])))
        found += pairs
        found += map(self._title_index.get, heading)
        found += map(self.index.get, extra)
        return found

    @cached_property
    def _description_columns(self) -> Callable[[str], tuple[list[str], list[int | None], list[int | None]]]:
        """A description's tokens as the model reads them, their columns and their pairs' columns.
        A window repeats descriptions (a commit carries its PR's, bots post one template): each
        distinct one is read once."""

        @lru_cache(maxsize=256)
        def columns(body: str) -> tuple[list[str], list[int | None], list[int | None]]:
            words = tokens(read_body(body, self.text_limit))
            return (
                words,
                [*map(self.index.get, words)],
                [*map(self._pair_index.get, zip(words, words[1:], strict=False))],
            )

        return columns

    @cached_property
    def _sentence_columns(self) -> Callable[[str], list[int]]:
        """`_word_columns` of a sentence's tokens, once per distinct sentence (templates recur)."""
        return lru_cache(maxsize=4096)(lambda sentence: self._word_columns(tokens(sentence)))

    def _word_columns(self, words: list[str]) -> list[int]:
        """The columns of the words and their pairs the model knows (`words + _pairs(words)`), in order."""
        found = [column for column in map(self.index.get, words) if column is not None]
        pairs = map(self._pair_index.get, zip(words, words[1:], strict=False))
        return found + [column for column in pairs if column is not None]

    def margins(self, found: Sequence[str]) -> list[float]:
        """Sublinear tf-idf, l2-normalised (the weighting the training used), times each class's weights."""
        return self._margins(map(self.index.get, found))

    def _margins(self, columns: Iterable[int | None]) -> list[float]:
        counts = Counter(columns)
        counts.pop(None, None)  # the terms it does not know
        if not counts:
            return list(self.intercept)
        columns = numpy.fromiter(counts.keys(), dtype=numpy.int64, count=len(counts))
        tf = numpy.fromiter(counts.values(), dtype=numpy.float64, count=len(counts))
        weights = (1.0 + numpy.log(tf)) * self._idf[columns]
        # What numpy.linalg.norm computes for a vector, without its dispatch on ord and axis.
        weights /= math.sqrt(weights.dot(weights)) or 1.0
        return (self._matrix[:, columns] @ weights + self._intercept).tolist()

    def probabilities(self, found: Sequence[str]) -> dict[str, float]:
        return self._probabilities(self.margins(found))

    def _probabilities(self, margins: list[float]) -> dict[str, float]:
        pairs = zip(self.classes, margins, self.platt, strict=True)
        return {name: _sigmoid(a * margin + b) for name, margin, (a, b) in pairs}

    def judge(
        self,
        title: str | None,
        body: str | None,
        sentences: Callable[[], Sequence[str]],
        extra: Iterable[str] = (),
        explain: float = 0.5,
    ) -> Judgement:
        """Class probabilities of the item, and for each class at least `explain` likely the sentence
        (title included) whose words push most towards it; `sentences` is read only then."""
        probabilities = self._probabilities(self._margins(self._term_columns(title, body, extra)))
        evidence: dict[str, str] = {}
        wanted = [k for k, name in enumerate(self.classes) if probabilities[name] >= explain]
        if wanted:
            # A lead-in ("Script to record times:") states nothing once what it introduces is cut away.
            candidates = [title or "", *(sentence for sentence in sentences() if not lead_in(sentence))]
            rows = self._matrix[wanted]
            scored = [self._contributions(self._sentence_columns(sentence), wanted, rows) for sentence in candidates]
            for k in wanted:
                best = max(range(len(candidates)), key=lambda n: scored[n][k])
                if scored[best][k] > 0:
                    evidence[self.classes[k]] = candidates[best]
        return Judgement(probabilities, evidence)

    def _contributions(self, columns: list[int], wanted: list[int], rows: numpy.ndarray) -> dict[int, float]:
        """Class k (of `wanted`, whose weight `rows` are) -> how far the words of `columns` push towards it."""
        if not columns:
            return dict.fromkeys(wanted, 0.0)
        sums = rows[:, columns] @ self._idf[columns]
        return {k: float(total) for k, total in zip(wanted, sums, strict=True)}


def packed(values: Sequence[float] | Sequence[Sequence[float]] | numpy.ndarray) -> str:
    """Weights as base64 of their bytes: a model read at every run parses 300,000 numbers written
    as text ten times slower than it decodes them as bytes, and the bytes are the values exactly."""
    return base64.b64encode(numpy.asarray(values, dtype=PACKED_DTYPE).tobytes()).decode("ascii")


def unpacked(text: object, count: int) -> numpy.ndarray:
    """The `count` weights `packed` wrote (read-only: a model is never changed once read)."""
    if not isinstance(text, str):
        raise ValueError("weights are not packed as base64 text")
    try:
        values = numpy.frombuffer(base64.b64decode(text, validate=True), dtype=PACKED_DTYPE)
    except (binascii.Error, ValueError):
        raise ValueError("weights are not packed float64 values") from None
    return _counted(values.astype(numpy.float64, copy=False), count)


def listed(values: object, count: int) -> numpy.ndarray:
    """The `count` weights of a file of the former format: numbers, a row of them per class."""
    return _counted(numpy.asarray(values, dtype=numpy.float64).ravel(), count)


def _counted(weights: numpy.ndarray, count: int) -> numpy.ndarray:
    if weights.size != count:
        raise ValueError(f"{weights.size} weights where the terms and classes need {count}")
    return weights


def _text_limit(value: object) -> int:
    if not isinstance(value, int) or not 0 < value <= READ_AHEAD:
        raise ValueError(f"text_limit {value!r} is not a number of characters from 1 to {READ_AHEAD}")
    return value


def _sigmoid(value: float) -> float:
    if value < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value))


def read_model(path: Path) -> SeverityModel:
    return read_document(path, "severity model", SeverityModel.from_dict)


def read_document(path: Path, what: str, parse: Callable[[dict], Parsed]) -> Parsed:
    """A model file (JSON, gzipped when its name ends in .gz) parsed by `parse`; any fault is a ConfigError."""
    try:
        raw = path.read_bytes()
        return parse(json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"cannot read the {what} {path}: {exc}") from None


def load_document(path: str | None, packaged: str, what: str, parse: Callable[[dict], Parsed]) -> Parsed:
    """The model file at `path`, or the one named `packaged` shipped with the package."""
    if path:
        return read_document(Path(path), what, parse)
    with resources.as_file(resources.files("pytorch_insight") / "models" / packaged) as shipped:
        return read_document(shipped, what, parse)


def write_model(model: SeverityModel, path: Path) -> None:
    write_document(model.to_dict(), path)


def write_document(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    path.write_bytes(gzip.compress(text, mtime=0) if path.suffix == ".gz" else text)


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> SeverityModel:
    """The model named by `path`, by $PYTORCH_INSIGHT_SEVERITY_MODEL, or the one shipped with the
    package; read once per process."""
    return load_document(path or os.environ.get(MODEL_ENV), PACKAGED, "severity model", SeverityModel.from_dict)
