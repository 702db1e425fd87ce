"""Deep analysis on the workers: each focus item's model call is a task.

The tasks put the model's answers into the shared cache (the store's llm_cache); the report's
own analysis then runs as in-process, finds every answer there, and grounds and merges it as
usual. What the workers could not answer the in-process analysis asks the model for itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytorch_insight.analysis.llm import LLMAnalyser, item_context
from pytorch_insight.analysis.model import Analysis, AnalysisContext
from pytorch_insight.config import LLMSettings, Settings
from pytorch_insight.pipeline import Assessment
from pytorch_insight.store import LLMLedger
from pytorch_insight.workers.app import ANSWER_TASK
from pytorch_insight.workers.dispatch import Dispatcher
from pytorch_insight.workers.tasks import store_identity


class WorkerAnalyser(LLMAnalyser):
    def __init__(self, *args: Any, dispatcher: Dispatcher, **options: Any) -> None:
        super().__init__(*args, **options)
        self.dispatcher = dispatcher

    def analyse_batch(self, pairs: Sequence[tuple[Assessment, bool]], context: AnalysisContext) -> list[Analysis]:
        # The deep items first, as in-process; with a token budget in waves of `concurrency`
        # calls, so no more is sent once it is spent.
        ordered = sorted(pairs, key=lambda pair: not pair[1])
        wave = self.settings.concurrency if self.settings.budget_tokens is not None else len(ordered)
        for start in range(0, len(ordered), max(1, wave)):
            if self._budget_spent():
                break
            self._answer_on_workers(ordered[start : start + wave], context)
        # The footer then counts the workers' calls, and as cache hits the answers read back here.
        return super().analyse_batch(pairs, context)

    def _answer_on_workers(self, pairs: Sequence[tuple[Assessment, bool]], context: AnalysisContext) -> None:
        """One task per item, waited for; what the workers spent is added to this report's usage."""
        self.dispatcher.check_workers()
        store = store_identity(self.dispatcher.settings.db)
        common = {"model": self.name, "lang": self.lang, "role": self.role, "store": store}
        pending = {}
        for assessment, deep in pairs:
            data = item_context(assessment, context, self.rules.analyse(assessment, context, deep))
            job = {**common, "data": data, "purpose": assessment.id}
            pending[assessment.id] = self.dispatcher.send(ANSWER_TASK, job)
        for succeeded, result in self.dispatcher.wait(pending).values():
            if succeeded:
                with self.usage.lock:
                    self.usage.calls += result["calls"]
                    self.usage.tokens_in += result["tokens_in"]
                    self.usage.tokens_out += result["tokens_out"]


def worker_analyser(settings: Settings, llm: LLMSettings, ledger: LLMLedger, *, lang: str, role: str) -> WorkerAnalyser:
    return WorkerAnalyser(llm, ledger, lang=lang, role=role, dispatcher=Dispatcher(settings))
