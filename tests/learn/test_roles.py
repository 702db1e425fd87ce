"""The sentence-role corpus and model: headings label the sentences under them (the heading left
out), a model trained on the fixture corpus reads clear sentences' roles, and the analysis does not
take a "because" clause that states an impact for a root cause."""

from __future__ import annotations

import pytest

from pytorch_insight.analysis.causes import root_causes
from pytorch_insight.analysis.roles import RoleModel
from pytorch_insight.learn.role_model import fit_roles
from pytorch_insight.learn.roles import labelled_sentences, read_role_corpus
from tests.conftest import DATA

CORPUS = DATA / "learn" / "roles.jsonl"

DESCRIPTION = """Fix a crash when loading checkpoints.

## Root cause
The loader reads the shard index before the metadata file is flushed, so it sees a truncated index.

**Workaround:** pass `strict=False` to the loader until this lands.

Impact: every resumed run on more than one node fails at startup.

## Test plan
Ran the distributed checkpoint tests on two nodes.

```
# not a heading: a comment in code
```
Differential Revision: D123
"""


def test_sentences_take_the_role_of_their_heading_or_lead_in_which_is_left_out() -> None:
    found = {role: sentence for role, _, sentence in labelled_sentences(DESCRIPTION)}
    assert found["cause"].startswith("The loader reads the shard index")
    assert found["workaround"] == "pass `strict=False` to the loader until this lands."
    assert found["impact"] == "every resumed run on more than one node fails at startup."
    assert found["test_plan"] == "Ran the distributed checkpoint tests on two nodes."
    assert "fix" not in found and "summary" not in found  # text under no role heading is not labelled


def test_a_lead_in_inside_a_paragraph_labels_its_sentence() -> None:
    found = list(labelled_sentences("Training hangs. As a workaround, set NCCL_P2P_DISABLE=1 on every rank."))
    assert ("workaround", "As a workaround", "set NCCL_P2P_DISABLE=1 on every rank.") in found


@pytest.fixture(scope="module")
def roles() -> RoleModel:
    return RoleModel(fit_roles(read_role_corpus([CORPUS])))


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("[pip3] numpy==1.26.4 [pip3] torch==2.5.0 [conda] cudatoolkit 12.1", "versions"),
        ("Ran the unit tests locally and added a test that covers the new path.", "test_plan"),
    ],
)
def test_the_model_reads_the_role_of_clear_sentences(roles: RoleModel, sentence: str, role: str) -> None:
    probabilities = roles.probabilities(sentence)
    assert max(probabilities, key=probabilities.__getitem__) == role


def test_a_because_clause_that_states_an_impact_is_not_a_root_cause(roles: RoleModel) -> None:
    impact = "Because no error is raised, the wrong sum quietly corrupts every checkpoint written after the resize."
    mechanism = "The kernel reads the stale stride because the cached layout is not invalidated after the resize."
    assert root_causes([impact, mechanism], summary="", roles=roles) == [mechanism]


def test_the_reason_for_removing_a_hack_is_not_a_root_cause() -> None:
    removal = "We had to remove the guard because it was swallowing every failure on exit."
    assert root_causes([removal], summary="") == []
