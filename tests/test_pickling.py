"""A dataclass pickled as its constructor's arguments comes back equal, and one whose fields its
constructor does not all take is refused at once instead of coming back wrong."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, field

import pytest

from pytorch_insight.pickling import by_fields


@by_fields
@dataclass(frozen=True, slots=True)
class Pair:
    left: tuple[str, ...]
    right: dict[str, float] = field(default_factory=dict)


@by_fields
@dataclass(slots=True)
class Single:
    value: list[Pair]


def test_a_dataclass_comes_back_equal_from_pickle_and_deepcopy() -> None:
    shared = Pair(("a", "b"), {"x": 0.5})
    value = Single([shared, shared, Pair(())])
    for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value)):
        assert copied == value and copied is not value
        assert copied.value[0] is copied.value[1]  # one object pickled once, as by default


def test_a_field_the_constructor_does_not_take_is_refused() -> None:
    with pytest.raises(TypeError, match="constructor"):

        @by_fields
        @dataclass
        class Derived:
            base: int
            total: int = field(init=False, default=0)
