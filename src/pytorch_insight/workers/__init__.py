"""Distributed collection and analysis: Celery over Redis.

`pytorch-insight worker` runs tasks (app.py, tasks.py); `collect --workers` / `run --workers`
split their job into tasks and wait for them (dispatch.py, parts.py). Tasks call the same source
and analyser code as the in-process path and write into the shared store; GitHub requests go
under one budget per token held in Redis (budget.py). Nothing under the pipeline imports this.
"""
