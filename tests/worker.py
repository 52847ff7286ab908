"""A real Celery worker in a subprocess, on the real Redis, against the test database; the
commands docker-compose.yml runs; a private redis-server a test may stop and start again."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
import yaml
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
VISIBILITY_TIMEOUT_S = 4
# Parallel test runs on one machine share Redis; each uses its own key prefix.
KEY_PREFIX = f"ecomap-test-{os.getpid()}:"


def transport_options() -> dict[str, object]:
    return {
        "visibility_timeout": VISIBILITY_TIMEOUT_S,
        "global_keyprefix": KEY_PREFIX,
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    }


def worker_env(broker_url: str, *, media_root: Path | None = None) -> dict[str, str]:
    db = connection.settings_dict
    user, host, port = db["USER"] or "postgres", db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    database_url = f"postgres://{user}@{host}:{port}/{db['NAME']}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ecomap.settings.test",
        "DATABASE_URL": database_url,
        "TEST_WORKER_BROKER_URL": broker_url,
        "TEST_WORKER_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT_S),
        "TEST_WORKER_KEYPREFIX": KEY_PREFIX,
        "PYTHONPATH": str(ROOT),
    }
    env.pop("CELERY_BROKER_URL", None)  # Celery would prefer it over our settings
    if media_root is not None:
        env["MEDIA_ROOT"] = str(media_root)
    return env


# One worker for every queue, one process, none of the worker-to-worker chatter: quick to start.
QUICK_WORKER = (
    "-A", "ecomap", "worker", "-Q", "celery,matrix,imports,reports", "-c", "1", "--pool", "prefork",
    "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info",
)  # fmt: skip


def compose_command(service: str, *, schedule: Path | None = None) -> tuple[str, ...]:
    """The `celery` arguments docker-compose.yml runs `service` with (worker, matrix-worker,
    beat), gossip, mingle and heartbeat included; beat's schedule file moved to `schedule`."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    program, *arguments = compose["services"][service]["command"]
    assert program == "celery", f"{service} does not run celery"
    if schedule is not None:
        arguments = [
            f"--schedule={schedule}" if a.startswith("--schedule=") else a for a in arguments
        ]
    return tuple(arguments)


class Worker:
    """`celery worker` (or `celery beat`, given its arguments) as a child process in its own
    process group, so it can be SIGKILLed whole."""

    def __init__(
        self,
        broker_url: str,
        log_path: Path,
        *,
        media_root: Path | None = None,
        env: dict[str, str] | None = None,
        arguments: tuple[str, ...] = QUICK_WORKER,
    ):
        self.broker_url = broker_url
        self.log_path = log_path
        self.media_root = media_root
        self.env = env or {}
        self.arguments = arguments
        self.process: subprocess.Popen | None = None

    def start(self) -> Worker:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv, our own venv
            [sys.executable, "-m", "celery", *self.arguments],
            cwd=ROOT,
            env={**worker_env(self.broker_url, media_root=self.media_root), **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        return self

    def kill(self) -> None:
        """SIGKILL the worker and its pool children: no chance to ack or clean up."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def wait_for(predicate, *, timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    detail = what() if callable(what) else what
    raise AssertionError(f"timed out after {timeout} s waiting for {detail}")


def worker_killed_when(
    broker_url: str, log_path: Path, started, *, media_root: Path | None = None
) -> None:
    """Starts a worker and SIGKILLs it (main process and pool child) as soon as `started()`."""
    worker = Worker(broker_url, log_path, media_root=media_root).start()
    try:
        wait_for(started, timeout=90, interval=0.02, what=lambda: f"the job\n{worker.log()}")
    finally:
        worker.kill()


def broker_messages_lost(broker_url: str) -> None:
    """The broker forgets this test's messages, acknowledged or not, as a Redis restarted
    without its data would: only the job rows are left."""
    client = redis.Redis.from_url(broker_url)
    for key in client.scan_iter(match=f"{KEY_PREFIX}*"):
        client.delete(key)


def redis_url() -> str:
    return getattr(settings, "TEST_REDIS_URL", "redis://127.0.0.1:6379/14")


@contextmanager
def app_on_broker(url: str, django_settings) -> Iterator[str]:
    """The project's Celery app pointed at the broker `url` (own key prefix), not eager, for the
    test's duration; the keys it leaves there are deleted afterwards."""
    from ecomap.celery import app

    previous = dict(app.conf)
    app.conf.update(
        broker_url=url,
        task_always_eager=False,
        result_backend=None,
        broker_transport_options=transport_options(),
    )
    # The app may already hold a memory:// producer pool from eager tests: drop it.
    app._pool = None
    app.amqp._producer_pool = None
    django_settings.CELERY_TASK_ALWAYS_EAGER = False
    try:
        yield url
    finally:
        app.conf.update(
            broker_url=previous["broker_url"],
            task_always_eager=previous["task_always_eager"],
            result_backend=previous["result_backend"],
            broker_transport_options=previous["broker_transport_options"],
        )
        app._pool = None
        app.amqp._producer_pool = None
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=1)
            for key in client.scan_iter(match=f"{KEY_PREFIX}*"):
                client.delete(key)
        except redis.RedisError:
            pass  # a private broker a fault test has stopped: nothing shared to clean


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A private `redis-server` that keeps its data in an append-only file, as compose's redis
    does, so queued messages survive a stop; it starts again on the same port. Fault tests stop
    this one, never the machine's shared Redis."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.directory.mkdir(parents=True, exist_ok=True)
        log = (self.directory / "redis.log").open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv
            [
                shutil.which("redis-server") or "/usr/bin/redis-server",
                "--bind", "127.0.0.1", "--port", str(self.port),
                "--appendonly", "yes", "--dir", str(self.directory), "--save", "",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        wait_for(lambda: _answers(client), timeout=10, what="redis-server to start")
        return self

    def stop(self) -> None:
        """SIGTERM, as `docker compose stop` sends: Redis writes its append-only file, exits and
        closes every client connection."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
