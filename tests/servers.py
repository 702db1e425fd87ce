"""Real database servers for the tests: PostgreSQL, given by CI or started here for the session.

`.ci/run` starts one and names it in PYTORCH_INSIGHT_TEST_PG (a URL whose user may create
databases). Without it, a throwaway server is started from Debian's `postgresql` binaries when
they are installed (as the `postgres` system user when the tests run as root: the server refuses
root). Otherwise the tests that need it are skipped, except in CI (CI=true), where they fail.

Fixtures (imported by conftest.py, so every test can use them):
- `postgres_server` (session): the server; `.database(name)` creates a database, returns its URL.
- `postgres_url` (per test): the URL of a new empty database, dropped after the test.
"""

from __future__ import annotations

import itertools
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from glob import glob
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import URL, create_engine, make_url, text
from sqlalchemy.pool import NullPool

PG_ENV = "PYTORCH_INSIGHT_TEST_PG"
# Newest first: /usr/lib/postgresql/<major>/bin is where Debian's packages put the server.
PG_BIN_DIRS = sorted(
    (d for d in glob("/usr/lib/postgresql/*/bin") if Path(d).parent.name.isdigit()),
    key=lambda d: int(Path(d).parent.name),
    reverse=True,
)
START_TIMEOUT_S = 60
_names = itertools.count(1)


class PostgresServer:
    """A PostgreSQL server reached through `url` (any database on it, as a user that may create more)."""

    def __init__(self, url: URL, stop: Callable[[], None] | None = None) -> None:
        self.url = url
        self._stop = stop
        self._admin = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)

    def database(self, name: str, *options: str) -> str:
        """Create database `name` (`options` as CREATE DATABASE takes them); its URL, password included."""
        with self._admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}" {" ".join(options)}'))
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop(self, name: str) -> None:
        with self._admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        self._admin.dispose()
        if self._stop is not None:
            self._stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_postgres(durable: bool = False) -> PostgresServer:
    """initdb into a temporary folder and start a server on a free local port; stopped by close().

    Durability is not what the tests check: without `durable`, the server never waits for the
    disk (fsync off), and a database is created in milliseconds. Benchmarks keep the defaults.
    """
    bin_dir = next((Path(d) for d in PG_BIN_DIRS if Path(d, "initdb").exists() and Path(d, "pg_ctl").exists()), None)
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL server binaries (install Debian's `postgresql` package)")
    owner = _server_user()
    base = Path(tempfile.mkdtemp(prefix="insight-pg-"))
    if owner is not None:
        os.chown(base, owner.pw_uid, owner.pw_gid)
    password = secrets.token_urlsafe(16)
    (base / "password").write_text(password)
    if owner is not None:
        os.chown(base / "password", owner.pw_uid, owner.pw_gid)
    data = base / "data"

    # As the server's user, from its folder (that user may not be allowed into the current one).
    as_owner: dict[str, Any] = {"cwd": base, "capture_output": True, "text": True, "timeout": START_TIMEOUT_S}
    if owner is not None:
        as_owner |= {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}

    def run(*command: str) -> None:
        done = subprocess.run(command, **as_owner)
        if done.returncode != 0:
            log = base / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()} {tail}")

    def stop() -> None:
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], **as_owner)
        shutil.rmtree(base, ignore_errors=True)

    try:
        run(
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            "insight",
            f"--pwfile={base / 'password'}",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",  # the tests reach it over TCP, with the password
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        for attempt in range(3):  # another process may take the free port before the server does
            port = free_port()
            settings = f"-c listen_addresses=127.0.0.1 -p {port} -k {base}"
            if not durable:
                settings += " -c fsync=off -c full_page_writes=off"
            try:
                run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(base / "log"), "-o", settings, "-w", "start")
                break
            except RuntimeError:
                if attempt == 2:
                    raise
    except BaseException:
        stop()
        raise
    url = URL.create("postgresql+psycopg", "insight", password, "127.0.0.1", port, "postgres")
    return PostgresServer(url, stop)


def _server_user() -> pwd.struct_passwd | None:
    """Who runs the server: None for the current user, the `postgres` user when that is root."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root, and no `postgres` user to run the server as") from None


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is required in CI: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason} (set {PG_ENV} to a postgresql+psycopg:// URL)")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable('the driver is not installed: pip install -e ".[dev]"')
    given = os.environ.get(PG_ENV)
    if given:
        server = PostgresServer(make_url(given))
    else:
        try:
            server = start_postgres()
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            _unavailable(str(exc))
    yield server
    server.close()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, empty database for one test."""
    name = f"insight_test_{os.getpid()}_{next(_names)}"
    yield postgres_server.database(name)
    postgres_server.drop(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of a store test: a new SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "insight.db")
    return str(request.getfixturevalue("postgres_url"))
