"""gunicorn serving this tree under production settings, against the test database.

What production runs (docker-compose.yml's web service): `ecomap.settings.production`, gunicorn
with gthread workers, DEBUG off, persistent database connections, throttles on, the broker and
the cache on Redis. Only what a test needs differs: the database is the test's, Redis is a
database of the test Redis's own (emptied before and after), the server listens on a free
loopback port and, as compose does, serves plain HTTP (SECURE_SSL_REDIRECT=false). No worker
runs: jobs the server publishes stay queued. Static files are collected as the image collects
them (hashed names, compressed), except the large third-party assets no API answer names (the
admin's, the API docs', Plotly's), which would take minutes to compress.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import redis

from tests.worker import ROOT, worker_env

# Left out of collectstatic (see above): pages naming them are not what these tests request.
UNCOLLECTED = (
    "admin",
    "rest_framework",
    "drf_spectacular_sidecar",
    "plotly.min.js",
    "widgetbundle.js",
    "templates",
    "package_data",
)

# The test Redis's database for the production server's broker and cache (tests/worker.py uses
# 14, test_cache_down 0 and 2).
REDIS_DB = 12


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ProductionServer:
    def __init__(self, log_path: Path, *, media_root: Path, workers: int = 2, threads: int = 4):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.media_root = media_root
        self.arguments = ["--workers", str(workers), "--threads", str(threads)]
        self.redis_url = f"redis://127.0.0.1:6379/{REDIS_DB}"
        self.static_root = log_path.parent / "static"
        self.process: subprocess.Popen | None = None

    def environment(self) -> dict[str, str]:
        env = worker_env(self.redis_url, media_root=self.media_root)
        for name in (
            "TEST_WORKER_BROKER_URL",
            "TEST_WORKER_VISIBILITY_TIMEOUT",
            "TEST_WORKER_KEYPREFIX",
            "CACHE_URL",
        ):
            env.pop(name, None)
        env.update(
            DJANGO_SETTINGS_MODULE="ecomap.settings.production",
            SECRET_KEY=secrets.token_urlsafe(60),
            ALLOWED_HOSTS="127.0.0.1",
            BROKER_URL=self.redis_url,
            SECURE_SSL_REDIRECT="false",
            LOG_LEVEL="WARNING",
            STATIC_ROOT=str(self.static_root),
            EMAIL_URL="dummymail://",
        )
        return env

    def start(self) -> ProductionServer:
        redis.Redis.from_url(self.redis_url).flushdb()
        ignored = [argument for name in UNCOLLECTED for argument in ("--ignore", name)]
        subprocess.run(  # noqa: S603 - fixed argv, our own venv
            [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0", *ignored],
            cwd=ROOT,
            env=self.environment(),
            check=True,
        )
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv, our own venv
            [sys.executable, "-m", "gunicorn", "ecomap.wsgi", "--bind", f"127.0.0.1:{self.port}",
             "--worker-class", "gthread", *self.arguments, "--timeout", "120"],
            cwd=ROOT,
            env=self.environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as answer:  # noqa: S310
                    if answer.status == 200:
                        return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer /healthz: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        redis.Redis.from_url(self.redis_url).flushdb()

    def __enter__(self) -> ProductionServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
