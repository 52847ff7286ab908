"""docker-compose.yml: every service comes back by itself after a crash or a reboot, and Redis
keeps the queued jobs across its own restart (issue 41, H2). Read as docker-compose reads it
(anchors merged) when docker-compose is installed, as `make compose-config` does."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from tests.worker import ROOT

SERVICES = {"db", "redis", "web", "worker", "matrix-worker", "beat"}


def _compose_services() -> dict[str, dict]:
    docker_compose = shutil.which("docker-compose")
    if docker_compose is None:
        return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    resolved = subprocess.run(  # noqa: S603 - fixed argv
        [docker_compose, "-f", str(ROOT / "docker-compose.yml"), "config"],
        env={**os.environ, "SECRET_KEY": "compose-check-only", "ALLOWED_HOSTS": "localhost"},
        capture_output=True,
        text=True,
        check=True,
    )
    return yaml.safe_load(resolved.stdout)["services"]


@pytest.fixture(scope="module")
def services() -> dict[str, dict]:
    return _compose_services()


def test_the_stack_is_the_six_services_this_test_knows(services):
    assert set(services) == SERVICES


def test_every_service_restarts_unless_stopped_by_hand(services):
    restart = {name: service.get("restart") for name, service in services.items()}

    assert restart == dict.fromkeys(SERVICES, "unless-stopped")


def test_redis_writes_an_append_only_file_so_queued_jobs_survive_its_restart(services):
    command = services["redis"]["command"]

    assert command[:1] == ["redis-server"]
    assert command[command.index("--appendonly") + 1] == "yes"


def test_workers_and_beat_run_celery_with_the_projects_app(services):
    for name in ("worker", "matrix-worker", "beat"):
        assert services[name]["command"][:3] == ["celery", "-A", "ecomap"], name
