"""What role a sentence plays in its thread (cause, impact, workaround ...), as a model learned from
sentences that PyTorch authors put under role headings themselves ("Root cause", "Workaround",
"Impact" ...; `learn/roles.py` builds that corpus, `learn/role_model.py` fits the model).

The model has the severity model's linear form (word and word-pair tf-idf, one Platt-scaled logistic
regression per role) and is read the same way: pure Python and numpy, a small JSON file shipped in
`models/`, no training code imported.
"""

from __future__ import annotations

import os
from functools import lru_cache

from pytorch_insight.pipeline.severity import SeverityModel, load_document, tokens

PACKAGED = "roles.json.gz"
MODEL_ENV = "PYTORCH_INSIGHT_ROLE_MODEL"


def sentence_terms(sentence: str) -> list[str]:
    """The features of one sentence: its words and word pairs (numbers folded to `0`)."""
    words = tokens(sentence)
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]


class RoleModel:
    """Role probabilities of sentences; each sentence is scored once per process."""

    def __init__(self, linear: SeverityModel) -> None:
        self.linear = linear
        self.roles = linear.classes
        self._cache: dict[str, dict[str, float]] = {}

    @property
    def card(self) -> dict:
        return self.linear.card

    def probabilities(self, sentence: str) -> dict[str, float]:
        found = self._cache.get(sentence)
        if found is None:
            found = self._cache[sentence] = self.linear.probabilities(sentence_terms(sentence))
        return found

    def p(self, sentence: str, role: str) -> float:
        return self.probabilities(sentence).get(role, 0.0)


@lru_cache(maxsize=4)
def load_role_model(path: str | None = None) -> RoleModel:
    """The model named by `path`, by $PYTORCH_INSIGHT_ROLE_MODEL, or the one shipped with the package."""
    return RoleModel(load_document(path or os.environ.get(MODEL_ENV), PACKAGED, "role model", SeverityModel.from_dict))
