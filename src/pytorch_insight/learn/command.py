"""What `pytorch-insight learn` does, apart from parsing its options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from pytorch_insight.collect import github_client
from pytorch_insight.config import APP_NAME, Settings
from pytorch_insight.errors import ConfigError
from pytorch_insight.http import RequestStats
from pytorch_insight.learn.fit import Fitted
from pytorch_insight.learn.harvest import harvest, label_queries, merge_corpus
from pytorch_insight.learn.run import learn_from_files
from pytorch_insight.store import Store


@dataclass(frozen=True)
class Learned:
    model: Path
    corpus: list[Path]
    requests: int
    fitted: Fitted


def learn_folder() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "learn"


def run_learn(
    settings: Settings,
    store: Store | None,
    corpus_files: Sequence[Path],
    held_out: Sequence[Path],
    repos: Sequence[str],
    pages: int,
    out: Path | None,
) -> Learned:
    profile = settings.profile
    if not profile.judgement.classes:
        raise ConfigError(f"profile {profile.name} maps no labels to classes ([judgement.classes]): nothing to learn")
    out = out or learn_folder() / f"{profile.name}-severity.json.gz"
    stats = RequestStats()
    files = list(corpus_files)
    if not files:
        if store is None:
            raise ConfigError("harvesting needs the store (its HTTP cache)")
        targets = list(repos) or profile.github.repositories
        if not targets:
            raise ConfigError(f"profile {profile.name} names no repository to harvest; give --repo OWNER/NAME")
        with github_client(settings, store) as client:
            for repo in targets:
                path = learn_folder() / f"{repo.replace('/', '__')}.corpus.jsonl"
                queries = label_queries(repo, profile.judgement.classes, profile.judgement.background)
                merge_corpus(path, harvest(client, stats, queries, pages))
                files.append(path)
    fitted = learn_from_files(profile, files, list(held_out), out)
    return Learned(out, files, stats.requests, fitted)
