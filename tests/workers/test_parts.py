"""How a job splits into tasks, how a task narrows the profile, how statuses add up; the
[workers] settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytorch_insight.config import load_profile, load_settings
from pytorch_insight.errors import ConfigError
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.sources.github_plan import Slice
from pytorch_insight.workers.app import celery_app, hide_password
from pytorch_insight.workers.parts import Part, focus_parts, merge_statuses, narrow, slice_parts, split_job
from pytorch_insight.workers.tasks import store_identity


def test_one_part_per_repository_organisation_forum_feed_and_calendar() -> None:
    profile = load_profile("pytorch")
    profile = profile.model_copy(
        update={
            "github": profile.github.model_copy(
                update={"repositories": ["pytorch/pytorch", "pytorch/ao"], "orgs": ["meta-pytorch"]}
            )
        }
    )
    parts = split_job(profile, ("github", "forum", "blog", "events", "slack"))
    labels = [part.label for part in parts]
    assert labels[:3] == ["github pytorch/pytorch", "github pytorch/ao", "github meta-pytorch plan"]
    assert len([p for p in parts if p.source == "forum"]) == len(profile.forums) > 0
    assert len([p for p in parts if p.source == "blog"]) == len(profile.feeds) > 0
    assert len([p for p in parts if p.source == "events"]) == len(profile.events) > 0
    assert labels[-1] == "slack"
    assert [part.source for part in split_job(profile, ("forum",))] == ["forum"] * len(profile.forums)

    repo = narrow(profile, parts[1].as_json())
    assert (repo.github.repositories, repo.github.orgs) == (["pytorch/ao"], [])
    org = narrow(profile, parts[2].as_json())
    assert (org.github.repositories, org.github.orgs) == ([], ["meta-pytorch"])
    second_forum = next(p for p in parts if p.source == "forum" and p.target == str(len(profile.forums) - 1))
    assert narrow(profile, second_forum.as_json()).forums == [profile.forums[-1]]


def test_statuses_of_the_parts_add_up() -> None:
    ok = SourceStatus(name="github", status=CoverageStatus.OK, items=10, requests=4, not_modified=1)
    failed = SourceStatus(name="github", status=CoverageStatus.FAILED, requests=1, note="pytorch/x: not found (404)")
    assert merge_statuses("github", [ok, ok]).status is CoverageStatus.OK
    merged = merge_statuses("github", [ok, failed])
    assert (merged.status, merged.items, merged.requests, merged.not_modified) == (CoverageStatus.PARTIAL, 10, 5, 1)
    assert merged.note == "pytorch/x: not found (404)"
    assert merge_statuses("github", [failed, failed]).status is CoverageStatus.FAILED


def test_worker_settings_from_the_file_and_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[workers]\nbroker = "redis://:s3cretpass@10.0.0.5:6379/2"\ngithub_tokens = ["A", "B"]\n')
    settings = load_settings(db=str(tmp_path / "x.db"), config_file=str(config), env={})
    assert settings.workers.github_tokens == ["A", "B"]
    assert "s3cretpass" not in repr(settings.workers)
    app = celery_app(settings.workers)
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
    assert hide_password(settings.workers.broker.get_secret_value()) == "redis://:***@10.0.0.5:6379/2"
    from_env = load_settings(db="x.db", config_file=str(config), env={"PYTORCH_INSIGHT_BROKER": "redis://h:1/0"})
    assert from_env.workers.broker.get_secret_value() == "redis://h:1/0"

    config.write_text('[workers]\nbroker = "amqp://h"\n')
    with pytest.raises(ConfigError, match="must be a redis:// or rediss:// URL"):
        celery_app(load_settings(db="x.db", config_file=str(config), env={}).workers)
    config.write_text("[workers]\nconcurency = 3\n")
    with pytest.raises(ConfigError, match="workers.concurency"):
        load_settings(db="x.db", config_file=str(config), env={})


def test_a_store_is_named_the_same_from_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert store_identity("insight.db") == store_identity(str(tmp_path / "insight.db"))
    url = "postgresql+psycopg://insight:pw123456@db:5432/insight"
    assert store_identity(url) == "postgresql+psycopg://insight:***@db:5432/insight"


def test_an_organisations_plan_becomes_one_task_per_slice() -> None:
    plan = Part("github", "org-plan", "acme", "github acme plan")
    slices = [Slice("acme", listed="acme/a"), Slice("acme", query="org:acme -repo:acme/a")]
    ok = {**SourceStatus(name="github", status=CoverageStatus.OK).model_dump(mode="json")}
    parts = slice_parts([plan], {plan.label: (True, [{**ok, "slices": [piece.as_json() for piece in slices]}])})
    assert [(part.kind, part.label) for part in parts] == [
        ("org-slice", "github org:acme acme/a listing"),
        ("org-slice", "github org:acme search"),
    ]
    assert [Slice.from_json(part.as_json()["slice"]) for part in parts] == slices
    profile = narrow(load_profile("pytorch"), parts[1].as_json())
    assert (profile.github.repositories, profile.github.orgs) == ([], ["acme"])
    # A plan that failed (or found nothing to cut) leaves the organisation one task, as before.
    assert [(p.kind, p.target) for p in slice_parts([plan], {plan.label: (False, "boom")})] == [("org", "acme")]


def test_focus_details_are_sent_fullest_task_first() -> None:
    def item(repo: str, number: int) -> Item:
        return Item(id=f"github:{repo}#{number}", source="github", kind="issue", repo=repo, number=number)

    # Picked in rank order: one of pytorch/vision, six of pytorch/pytorch, two of pytorch/audio.
    picked = [item("pytorch/vision", 1), *(item("pytorch/pytorch", n) for n in range(1, 7))]
    picked += [item("pytorch/audio", 1), item("pytorch/audio", 2)]
    found = focus_parts(picked, chunk=4)
    assert [len(part.ids) for part in found] == [4, 2, 2, 1]
    assert sorted(id for part in found for id in part.ids) == sorted(item.id for item in picked)
    assert [part.label for part in found] == [f"github focus details {n}/4" for n in range(1, 5)]
