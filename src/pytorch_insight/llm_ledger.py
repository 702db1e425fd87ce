"""The model's answers cached by prompt, and every model call logged, in the store's database."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select

from pytorch_insight.schema import llm_cache, llm_calls
from pytorch_insight.store import Store
from pytorch_insight.store_rows import upsert, utcnow


class LLMLedger:
    """Model answers cached by (model, prompt hash), and every call logged."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def cached(self, key: str) -> dict[str, Any] | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(llm_cache).where(llm_cache.c.key == key)).first()
        return dict(row._mapping) if row else None

    def remember(self, key: str, model: str, answer: str, tokens_in: int, tokens_out: int) -> None:
        values = {
            "model": model,
            "answer": answer,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "stored_at": utcnow(),
        }
        self.store._write(lambda connection: upsert(connection, llm_cache.c.key, key, values))

    def log(
        self,
        model: str,
        prompt_hash: str,
        purpose: str,
        tokens_in: int,
        tokens_out: int,
        duration_ms: int,
        outcome: str,
    ) -> None:
        values = {
            "model": model,
            "prompt_hash": prompt_hash,
            "purpose": purpose,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "duration_ms": duration_ms,
            "outcome": outcome,
            "at": utcnow(),
        }
        self.store._write(lambda connection: connection.execute(insert(llm_calls).values(values)))

    def calls(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(select(llm_calls).order_by(llm_calls.c.id))]
