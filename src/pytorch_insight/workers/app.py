"""The Celery application both sides build from the `[workers]` settings."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from celery import Celery

from pytorch_insight.config import WorkerSettings
from pytorch_insight.errors import ConfigError

QUEUE = "pytorch-insight"
COLLECT_TASK = "pytorch_insight.collect_part"
ANSWER_TASK = "pytorch_insight.answer"
NO_BROKER = (
    'the workers need a broker: set [workers] broker = "redis://HOST:6379/0" in the config file, '
    "or PYTORCH_INSIGHT_BROKER"
)


def broker_url(settings: WorkerSettings) -> str:
    if settings.broker is None:
        raise ConfigError(NO_BROKER)
    url = settings.broker.get_secret_value()
    if urlsplit(url).scheme not in ("redis", "rediss"):
        raise ConfigError(f"[workers] broker must be a redis:// or rediss:// URL, not {hide_password(url)!r}")
    return url


def hide_password(url: str) -> str:
    """The URL with its password (if any) replaced, fit for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query, parts.fragment))


def restore_lock_expiry(visibility_timeout: float) -> int:
    """Seconds the lock a worker takes to deliver dead workers' tasks again outlives that worker.

    A worker killed while it holds the lock leaves it behind, and until it expires no worker
    delivers anything again: the broker's default (300 s) would stall a short visibility timeout's
    redelivery for minutes. Bounded by the visibility timeout, such a stall at most doubles it.
    """
    return max(2, min(300, int(visibility_timeout)))


def celery_app(settings: WorkerSettings) -> Celery:
    """Tasks are acknowledged only once done, so a task whose worker dies (killed, machine lost)
    is delivered again, after `visibility_timeout`; what it stored before is upserted again."""
    url = broker_url(settings)
    app = Celery("pytorch_insight", broker=url, backend=url, set_as_current=False)
    app.conf.update(
        task_default_queue=QUEUE,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_track_started=True,
        worker_prefetch_multiplier=1,  # a task waits in the queue, not behind a busy worker's other task
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout,
            # How often a worker looks for tasks whose worker died (their visibility timeout passed).
            "unacked_restore_interval": max(1, min(60, int(settings.visibility_timeout / 10))),
            "unacked_restore_throttle": 1,
            "unacked_mutex_expire": restore_lock_expiry(settings.visibility_timeout),
        },
        result_expires=86400,
        broker_connection_retry_on_startup=True,
        # A dispatcher whose broker is down says so after a few seconds instead of retrying forever.
        task_publish_retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5},
        broker_connection_timeout=5,
        redis_socket_connect_timeout=5,
    )
    return app
