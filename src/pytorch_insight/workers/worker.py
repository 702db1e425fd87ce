"""`pytorch-insight worker`: a Celery worker process running this project's tasks."""

from __future__ import annotations

import socket

from pytorch_insight.config import Settings
from pytorch_insight.workers.app import QUEUE, celery_app
from pytorch_insight.workers.tasks import Runtime, register_tasks


def run_worker(settings: Settings, concurrency: int | None, name: str | None, verbose: int) -> None:
    """Serve tasks until stopped. A thread pool: the tasks wait on the network, and a thread
    shares the process's store and budget (SIGTERM lets running tasks finish; SIGKILL loses
    nothing either, the broker delivers their tasks again)."""
    runtime = Runtime(settings)
    app = celery_app(settings.workers)
    register_tasks(app, runtime)
    level = "DEBUG" if verbose >= 2 else "INFO" if verbose == 1 else "WARNING"
    app.worker_main(
        [
            "worker",
            "--pool=threads",
            f"--concurrency={concurrency or settings.workers.concurrency}",
            f"--queues={QUEUE}",
            f"--hostname={name or f'pytorch-insight@{socket.gethostname()}'}",
            f"--loglevel={level}",
            "--without-gossip",
            "--without-mingle",
        ]
    )
