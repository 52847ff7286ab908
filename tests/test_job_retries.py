"""Every durable job retries when Redis (its cache or the broker) stops answering, instead of
failing for good (issue 28, M3). Run as a worker runs them: Celery's retry machinery, eagerly."""

from __future__ import annotations

import importlib

import pytest
from kombu.exceptions import OperationalError as BrokerUnreachable
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ecomap.celery import app

JOBS = [
    # (tasks module, the service the task calls, the task, its arguments)
    (
        "catalog.imports.tasks",
        "import_run",
        "run_import",
        ("0b6e3a4c-0000-4000-8000-0000000000aa",),
    ),
    ("evaluations.tasks", "notification_email_send", "send_notification_email", (1,)),
    ("evaluations.tasks", "webhook_deliver", "deliver_webhook", (1,)),
    ("evaluations.tasks", "catalog_drift_check", "check_catalog_drift", ()),
    ("ecomap.accounts.tasks", "password_reset_email_send", "send_password_reset_email", (1, "en")),
]
OUTAGES = [
    RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    RedisTimeoutError("Timeout reading from socket"),
    BrokerUnreachable("[Errno 111] Connection refused"),
]


@pytest.fixture(autouse=True)
def _as_a_worker(monkeypatch):
    """Eager tasks record their errors (as a worker does) instead of raising them here."""
    monkeypatch.setitem(app.conf, "task_eager_propagates", False)


@pytest.mark.parametrize("outage", OUTAGES, ids=type)
@pytest.mark.parametrize(("module", "service", "task_name", "args"), JOBS, ids=lambda v: v)
def test_a_job_cut_off_by_a_redis_outage_is_retried(
    monkeypatch, module, service, task_name, args, outage
):
    tasks = importlib.import_module(module)
    calls = []

    def outage_then_fine(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise outage

    monkeypatch.setattr(tasks, service, outage_then_fine)

    result = getattr(tasks, task_name).apply(args=args)

    assert result.successful()
    assert len(calls) == 2
