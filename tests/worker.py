"""A real Celery worker in a subprocess, on the real Redis, against the test database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

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


class Worker:
    """`celery worker` as a child process in its own process group, so it can be SIGKILLed whole."""

    def __init__(
        self,
        broker_url: str,
        log_path: Path,
        *,
        media_root: Path | None = None,
        env: dict[str, str] | None = None,
    ):
        self.broker_url = broker_url
        self.log_path = log_path
        self.media_root = media_root
        self.env = env or {}
        self.process: subprocess.Popen | None = None

    def start(self) -> Worker:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv, our own venv
            [
                sys.executable, "-m", "celery", "-A", "ecomap", "worker",
                "-Q", "celery,matrix,imports,reports", "-c", "1", "--pool", "prefork",
                "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info",
            ],
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


def wait_for(predicate, *, timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    detail = what() if callable(what) else what
    raise AssertionError(f"timed out after {timeout} s waiting for {detail}")


def redis_url() -> str:
    return getattr(settings, "TEST_REDIS_URL", "redis://127.0.0.1:6379/14")
