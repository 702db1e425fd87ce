"""The grounding check used on every generated text: each item number, identifier (code span,
dotted API name, snake_case name, config key), version, number (with or without a unit) and URL a
sentence states must occur in the sources it was written from, and most of its content words
must too. A sentence with an unsupported claim is dropped, not printed; so is one that repeats a
configuration value, or holds a redacted value the sources do not hold (the model echoed a secret
that redact.py took out of its answer)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytorch_insight.redact import REDACTED, redact

SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
ITEM_NUMBER = re.compile(r"#(\d{2,7})\b")
CODE_SPAN = re.compile(r"`([^`]{1,120})`")
URL = re.compile(r"https?://[^\s)>\]]+")
DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
SNAKE = re.compile(r"\b[A-Za-z]\w*_\w+\b")
# Numbers and keys start only where a run of digits (or of name characters) starts, so a run such
# as "1.1.1.1" or "a.a.a.a" is read once, not once per character.
CONFIG_KEY = re.compile(r"(?<![\w.])\.?([A-Za-z_][\w.]*+)\s*=")
VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)*\b")
NUMBER_UNIT = re.compile(
    r"(?<!\d)(\d+(?:\.\d+)?)\s?(?:ms|µs|us|s|sec|seconds|GiB|GB|MiB|MB|%|x|×|tok/s|tokens/s|TFLOPS|GB/s)(?![\w/])"
)
BARE_NUMBER = re.compile(r"(?<![\w.#/])\d{2,}(?![\w.%])")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
SUBSTANCE = re.compile(r"[A-Za-z\u4e00-\u9fff]")
NOT_CLAIMS = {"e.g", "i.e", "etc", "vs"}
# Common words carry no claim; the others must mostly come from the sources (Latin script only:
# a Chinese sentence is held to its names, numbers and identifiers).
STOPWORDS = frozenset(
    "about above after again also because been before being below between both could does doing down during each "
    "few from further have having here into itself just more most much must need only other over same should some "
    "such than that their them then there these they this those through under until very were what when where which "
    "while with would your will shall can cannot may might it's its the and for are but not you all any our out was "
    "has had how who why yes".split()
)
MIN_WORD_SUPPORT = 0.5


@dataclass
class Grounded:
    text: str = ""
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _normalise(text: str) -> str:
    return " ".join(text.replace("`", " ").split())


class SourceCorpus:
    """Everything a generated text may draw on, searchable as plain text."""

    def __init__(self, texts: Iterable[str], forbidden: Iterable[str] = ()) -> None:
        # Redacted like the answers they check: a token in an issue supports "[redacted]" there.
        self.text = _normalise(redact("\n".join(t for t in texts if t)))
        self.lower = self.text.lower()
        self.numbers = set(re.findall(r"\d+(?:\.\d+)?", self.text))
        self.words = {word.lower() for word in WORD.findall(self.text)}
        self.forbidden = [f for f in forbidden if f]

    def supports(self, claim: str) -> bool:
        return _normalise(claim).lower() in self.lower

    def unsupported(self, sentence: str) -> list[str]:
        """The claims in `sentence` that the sources do not contain."""
        missing = [f"#{n}" for n in ITEM_NUMBER.findall(sentence) if not re.search(rf"(?:#|/|\b){n}\b", self.text)]
        missing += [u for u in URL.findall(sentence) if not self.supports(u.rstrip(".,;"))]
        without_urls = URL.sub(" ", sentence)
        missing += [s for s in CODE_SPAN.findall(without_urls) if not self.supports(s)]
        for pattern in (DOTTED, SNAKE):
            missing += [
                name
                for name in pattern.findall(without_urls)
                if name.lower().rstrip(".") not in NOT_CLAIMS and not self.supports(name)
            ]
        missing += [key for key in CONFIG_KEY.findall(without_urls) if not self.supports(key)]
        missing += [v for v in VERSION.findall(without_urls) if not self.supports(v)]
        missing += [n for n in NUMBER_UNIT.findall(without_urls) if n not in self.numbers]
        missing += [n for n in BARE_NUMBER.findall(without_urls) if n not in self.numbers]
        missing += ["a configuration value" for f in self.forbidden if f in sentence]
        if REDACTED in sentence and REDACTED not in self.text:
            missing.append("a redacted value")
        if not SUBSTANCE.search(sentence):
            missing.append("no words")
        content = [w.lower() for w in WORD.findall(without_urls) if w.lower() not in STOPWORDS]
        if content and sum(w in self.words for w in content) / len(content) < MIN_WORD_SUPPORT:
            missing.append("wording the sources do not use")
        return list(dict.fromkeys(missing))

    def redact(self, text: str) -> str:
        return redact(text, self.forbidden)

    def check(self, text: str | None) -> Grounded:
        result = Grounded()
        for sentence in (s.strip() for s in SENTENCE.split(text or "")):
            if not sentence:
                continue
            if self.unsupported(sentence):
                result.dropped.append(self.redact(sentence))  # kept for the appendix, never with a secret in it
            else:
                result.kept.append(sentence)
        result.text = " ".join(result.kept)
        return result
