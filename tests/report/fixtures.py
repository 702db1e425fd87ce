"""A small fixed week of hand-written items for the rendering tests."""

from __future__ import annotations

from datetime import datetime, timezone

from pytorch_insight.config import load_profile
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.model import Comment, CoverageStatus, Item, Relation, SourceStatus
from pytorch_insight.pipeline import Assessment, assess
from pytorch_insight.report.build import ReportOptions, build_report
from pytorch_insight.report.model import Report
from pytorch_insight.window import Window, make_window
from tests.conftest import DATA, read_jsonl

PROFILE = load_profile("pytorch")
WINDOW = make_window("2026-04-07", "2026-04-13")
GENERATED = datetime(2026, 4, 14, 6, 0, tzinfo=timezone.utc)
BUG_BODY = """### 🐛 Describe the bug

`torch.compile` with `mode="max-autotune"` returns wrong results for `F.scaled_dot_product_attention` on H100.
The step takes 12.4 ms vs 13.9 ms in eager.

The root cause is that the autotuner caches a kernel for the wrong stride.

As a workaround, disable the cache:

```python
torch._inductor.config.autotune_local_cache = False
```

### Versions

PyTorch version: 2.12.0
CUDA: 13.0

cc @dora @erik @finn"""


def week() -> list[Item]:
    def github(number: int, kind: str, title: str, **fields: object) -> Item:
        path = "pull" if kind == "pull_request" else "issues"
        values = {
            "id": f"github:pytorch/pytorch#{number}",
            "source": "github",
            "kind": kind,
            "repo": "pytorch/pytorch",
            "number": number,
            "url": f"https://github.com/pytorch/pytorch/{path}/{number}",
            "title": title,
            "author": "someone",
            "state": "open",
            "created": "2026-04-08T12:00:00Z",
        }
        values.update(fields)
        return Item(**values)

    return [
        github(
            1001,
            "issue",
            "torch.compile max-autotune gives wrong results for SDPA",
            body=BUG_BODY,
            labels=["high priority", "module: inductor"],
            author="alice",
            comments=[
                Comment(id=1, author="eellison", date="2026-04-09T10:00:00Z", body="Confirmed, a fix is coming.")
            ],
        ),
        github(
            1002,
            "pull_request",
            "[inductor] Key the autotune cache by stride",
            body="Fixes #1001\n\nThe cache in `select_algorithm.py` ignored strides.",
            author="eellison",
            state="merged",
            merged="2026-04-10T12:00:00Z",
            files=[
                {
                    "filename": "torch/_inductor/select_algorithm.py",
                    "additions": 3,
                    "deletions": 1,
                    "functions": ["AlgorithmSelectorCache.__call__"],
                }
            ],
        ),
        github(
            1003,
            "rfc",
            "[RFC] Device-generic caching allocator",
            body="## Summary\n\nA proposal to share the allocator across backends.",
            author="bob",
        ),
        github(
            1004,
            "issue",
            "DISABLED test_foo (__main__.TestBar)",
            body="Platforms: rocm\n\nThis test was disabled because it is failing in CI.",
            author="ci-user",
        ),
        github(
            1005, "issue", "<script>alert('x')</script> | pipes | *stars*", body="A title that tries to inject markup."
        ),
        Item(
            id="commit:pytorch/pytorch@abcdef1234567",
            source="github",
            kind="commit",
            repo="pytorch/pytorch",
            sha="abcdef1234567",
            title="[inductor] Key the autotune cache by stride (#1002)",
            state="landed",
            created="2026-04-10T12:00:00Z",
            url="https://github.com/pytorch/pytorch/commit/abcdef1234567",
            relations=[
                Relation(type="lands", target="github:pytorch/pytorch#1002", evidence="Pull Request resolved line")
            ],
        ),
        Item(
            id="event:https://events.example/keynote",
            source="event",
            kind="event",
            title="Keynote: compilers",
            url="https://events.example/keynote",
            created="2026-04-09T09:00:00Z",
        ),
    ]


def report_of(
    items: list[Item],
    lang: str = "en",
    window: Window | None = None,
    statuses: list[SourceStatus] | None = None,
    collected: int | None = None,
) -> Report:
    """The report of these items (a fixed generation time); with a window, only the activity
    inside it counts, as in `report`."""
    ranked = assess(items, PROFILE, window=window)
    return report_of_ranked(ranked, lang, window, statuses, len(items) if collected is None else collected)


def report_of_ranked(
    ranked: list[Assessment],
    lang: str = "en",
    window: Window | None = None,
    statuses: list[SourceStatus] | None = None,
    collected: int | None = None,
) -> Report:
    """The report of items already assessed (a test may set what the ranking decided)."""
    return build_report(
        ranked,
        window=window or WINDOW,
        profile=PROFILE,
        reader=PROFILE.reader(None),
        statuses=statuses or [],
        collected=len(ranked) if collected is None else collected,
        options=ReportOptions(lang=lang, generated_at=GENERATED),
    )


def fixed_report(lang: str) -> Report:
    statuses = [
        SourceStatus(name="github", status=CoverageStatus.OK, items=6, requests=4, note=""),
        SourceStatus(name="slack", status=CoverageStatus.SKIPPED, note="skipped: no SLACK_TOKEN"),
    ]
    return report_of(week(), lang, statuses=statuses, collected=7)


def report_of_week(data: str, since: str, until: str, lang: str = "en") -> tuple[Report, list[Item]]:
    """The report of one window of a real week from tests/data/raw, and the items it was built from."""
    window = make_window(since, until)
    items = [item for item in map(item_from_line, read_jsonl(DATA / "raw" / data)) if item.active_in(window)]
    return report_of(items, lang, window), items
