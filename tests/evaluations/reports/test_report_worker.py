"""A PDF report built by a real Celery worker on the real Redis."""

from __future__ import annotations

import pytest

from evaluations.reports import services as reports
from evaluations.reports.models import Report
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.worker import Worker, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


def test_a_requested_report_is_built_by_the_worker_and_downloadable(celery_broker, tmp_path):
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    worker = Worker(celery_broker, tmp_path / "worker.log", media_root=tmp_path / "media").start()
    try:
        report = reports.report_request(evaluation=evaluation, actor=cast.bob)
        built = wait_for(
            lambda: Report.objects.filter(pk=report.pk, status="succeeded").first(),
            timeout=120,
            interval=0.5,
            what=lambda: f"the report\n{worker.log()}",
        )
    finally:
        worker.stop()

    pdf = tmp_path / "media" / built.file.name
    assert pdf.read_bytes().startswith(b"%PDF")
    assert built.pages >= 2
