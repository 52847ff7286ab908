"""Reports: the build job (claim, idempotence, failure), staleness, pages, API and the command."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.urls import include, path
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIClient

from catalog.selectors import catalog_revision
from ecomap.urls import urlpatterns as site_urlpatterns
from evaluations.engine.comparison import Conflict
from evaluations.errors import NotAllowed
from evaluations.reports import content as report_content
from evaluations.reports import lists as report_lists
from evaluations.reports import services as reports
from evaluations.reports.models import Report
from evaluations.reports.tasks import build_report
from evaluations.review.services import evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

# The lead mounts evaluations.api.urls under /api/v1/; mounted the same way here (as test_api).
urlpatterns = [path("api/v1/", include("evaluations.api.urls")), *site_urlpatterns]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def _tiny_jpeg() -> bytes:
    from PIL import Image  # WeasyPrint's own dependency

    out = io.BytesIO()
    Image.new("RGB", (40, 20), "#047857").save(out, "JPEG")
    return out.getvalue()


TINY_JPEG = _tiny_jpeg()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def quick_map(monkeypatch):
    """Kaleido drives Chromium (seconds per map on a loaded machine): test_report_pdf draws
    the real map; here a stand-in figure keeps the job tests fast."""
    monkeypatch.setattr(report_content, "_kaleido_server", lambda: None)
    monkeypatch.setattr(report_content, "map_print_image", lambda **kwargs: TINY_JPEG)
    cache.clear()  # drawn maps are cached: none may leak into another test
    yield
    cache.clear()


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return fill_steps(make_evaluation(cast), cast.bob)


@pytest.fixture
def built(evaluation, cast, django_capture_on_commit_callbacks) -> Report:
    with django_capture_on_commit_callbacks(execute=True):
        report = reports.report_request(evaluation=evaluation, actor=cast.bob)
    report.refresh_from_db()
    return report


def _pdf_text(report: Report) -> str:
    if not shutil.which("pdftotext"):
        pytest.skip("needs poppler-utils")
    command = ["pdftotext", report.file.path, "-"]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout  # noqa: S603


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


# ---- the job -------------------------------------------------------------------------------------


def test_a_requested_report_is_built_by_the_job_on_commit(built, evaluation):
    assert built.status == Report.Status.SUCCEEDED
    assert built.progress == 100
    assert built.file.name.startswith("reports/")
    assert built.file.read(5) == b"%PDF-"
    assert built.pages >= 5
    assert built.seconds > 0


def test_a_report_records_what_it_was_built_from(built, evaluation):
    assert built.evaluation_revision == evaluation.revision
    assert built.evaluation_updated_at == evaluation.updated_at
    assert built.catalog_revision == catalog_revision()


def test_nothing_is_enqueued_before_the_request_commits(evaluation, cast):
    report = reports.report_request(evaluation=evaluation, actor=cast.bob)

    report.refresh_from_db()
    assert report.status == Report.Status.PENDING


def test_asking_with_the_placement_cards_is_not_answered_by_a_queued_plain_build(evaluation, cast):
    plain = reports.report_request(evaluation=evaluation, actor=cast.bob)

    with_cards = reports.report_request(evaluation=evaluation, actor=cast.bob, with_cards=True)

    assert with_cards.pk != plain.pk
    assert with_cards.with_cards and not plain.with_cards
    assert reports.report_request(evaluation=evaluation, actor=cast.carol, with_cards=True) == (
        with_cards
    )


def test_asking_again_while_a_build_is_queued_returns_the_queued_one(evaluation, cast):
    first = reports.report_request(evaluation=evaluation, actor=cast.bob)

    second = reports.report_request(evaluation=evaluation, actor=cast.carol)

    assert second.pk == first.pk
    assert Report.objects.count() == 1


def test_a_viewer_cannot_ask_for_a_report(evaluation, cast):
    with pytest.raises(NotAllowed):
        reports.report_request(evaluation=evaluation, actor=cast.dave)


def test_a_reviewer_can_ask_for_a_report(evaluation, cast):
    report = reports.report_request(evaluation=evaluation, actor=cast.carol)

    assert report.requested_by == cast.carol


def test_a_second_delivery_of_a_built_report_changes_nothing(built):
    assert reports.report_build(report_id=built.pk) is None

    again = Report.objects.get(pk=built.pk)
    assert (again.file.name, again.finished_at) == (built.file.name, built.finished_at)


def test_a_build_cut_off_mid_way_is_finished_on_redelivery(evaluation, cast):
    report = reports.report_create(evaluation=evaluation, actor=cast.bob)
    Report.objects.filter(pk=report.pk).update(status=Report.Status.RUNNING, progress=40)

    reports.report_build(report_id=report.pk)

    report.refresh_from_db()
    assert report.status == Report.Status.SUCCEEDED
    assert report.attempts == 1


def test_a_failing_build_is_marked_failed_with_its_error(evaluation, cast, monkeypatch):
    report = reports.report_create(evaluation=evaluation, actor=cast.bob)

    def broken(context):
        raise RuntimeError("layout exploded")

    monkeypatch.setattr(reports, "render_report", broken)
    with pytest.raises(RuntimeError):
        build_report(report.pk)

    report.refresh_from_db()
    assert report.status == Report.Status.FAILED
    assert "layout exploded" in report.error


class _RedisGoneFor:
    """The cache as a report build sees it while Redis is down for the first `calls` calls."""

    def __init__(self, calls: int):
        self.left = calls

    def __getattr__(self, name):
        if self.left > 0:
            self.left -= 1
            raise RedisConnectionError(
                "Error 111 connecting to 127.0.0.1:6379. Connection refused."
            )
        return getattr(cache, name)


@pytest.fixture
def as_a_worker(monkeypatch):
    """Eager tasks record their errors (as a worker does) instead of raising them here."""
    monkeypatch.setitem(build_report.app.conf, "task_eager_propagates", False)


def test_a_build_cut_off_by_a_cache_outage_is_retried_and_then_succeeds(
    evaluation, cast, monkeypatch, as_a_worker
):
    report = reports.report_create(evaluation=evaluation, actor=cast.bob)
    monkeypatch.setattr(report_content, "cache", _RedisGoneFor(calls=1))

    build_report.apply(args=(report.pk,))  # the task as a worker runs it, retries included

    report.refresh_from_db()
    assert report.status == Report.Status.SUCCEEDED
    assert report.error == ""
    assert report.attempts == 1  # the attempt the outage cut off is not counted


def test_a_build_whose_retries_run_out_in_an_outage_waits_for_the_sweep(
    evaluation, cast, monkeypatch, as_a_worker, django_capture_on_commit_callbacks
):
    report = reports.report_create(evaluation=evaluation, actor=cast.bob)
    monkeypatch.setattr(report_content, "cache", _RedisGoneFor(calls=100))

    result = build_report.apply(args=(report.pk,))

    assert isinstance(result.result, RedisConnectionError)  # retried, then given up
    report.refresh_from_db()
    assert report.status == Report.Status.PENDING  # not failed: the sweep resends it
    assert report.attempts == 0

    monkeypatch.setattr(report_content, "cache", cache)  # Redis is back
    with django_capture_on_commit_callbacks(execute=True):
        counts = reports.reports_recover(
            now=report.created_at + timedelta(minutes=5),
            pending_grace=timedelta(minutes=1),
            running_limit=timedelta(minutes=10),
        )

    assert counts["republished"] == 1
    report.refresh_from_db()
    assert report.status == Report.Status.SUCCEEDED


def test_the_report_still_builds_when_the_map_cannot_be_drawn(evaluation, cast, monkeypatch):
    def no_browser(**kwargs):
        raise RuntimeError("Chromium not found")

    monkeypatch.setattr(report_content, "map_print_image", no_browser)
    report = reports.report_create(evaluation=evaluation, actor=cast.bob)

    reports.report_build(report_id=report.pk)

    report.refresh_from_db()
    assert report.status == Report.Status.SUCCEEDED
    assert "The map could not be drawn" in _pdf_text(report)


def test_the_report_is_written_in_the_requested_language(evaluation, cast):
    report = reports.report_create(evaluation=evaluation, actor=cast.bob, language="zh-hans")

    reports.report_build(report_id=report.pk)

    report.refresh_from_db()
    assert report.language == "zh-hans"
    assert report.status == Report.Status.SUCCEEDED


# ---- staleness -----------------------------------------------------------------------------------


def test_a_fresh_report_is_not_stale(built, evaluation):
    assert not reports.report_is_stale(built, evaluation)


def test_a_report_is_stale_once_the_evaluation_changes(built, evaluation, cast):
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "single"}
    )

    assert reports.report_is_stale(Report.objects.get(pk=built.pk))


def test_a_review_after_the_build_makes_the_report_stale(built, evaluation, cast):
    evaluation_submit(evaluation=evaluation, actor=cast.bob)

    assert reports.report_is_stale(Report.objects.get(pk=built.pk))


# ---- pages ---------------------------------------------------------------------------------------


def test_the_evaluation_page_shows_the_report_panel_with_the_download(
    built, evaluation, client, cast
):
    client.force_login(cast.dave)

    page = client.get(f"/evaluations/{evaluation.pk}/").content.decode()

    assert 'id="reports"' in page
    assert f"/reports/evaluations/{evaluation.pk}/{built.pk}/download/" in page
    assert "Build the report again" not in page  # a viewer cannot ask for one


def test_the_panel_marks_a_stale_report(built, evaluation, client, cast):
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "single"}
    )
    client.force_login(cast.bob)

    page = client.get(f"/evaluations/{evaluation.pk}/").content.decode()

    assert re.search(r'data-report-stale title="[^"]*">', page)


def test_posting_the_button_queues_a_build_and_answers_json(evaluation, client, cast):
    client.force_login(cast.bob)

    response = client.post(f"/reports/evaluations/{evaluation.pk}/", HTTP_ACCEPT="application/json")

    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    assert response.json()["status_url"].endswith("/status/")


def test_an_editor_can_ask_for_the_placement_cards_from_the_page(evaluation, client, cast):
    client.force_login(cast.bob)

    assert 'name="with_cards"' in client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    response = client.post(f"/reports/evaluations/{evaluation.pk}/", {"with_cards": "1"})

    assert response.status_code == 302
    assert Report.objects.get(evaluation=evaluation).with_cards


def test_a_viewer_pressing_the_button_is_refused(evaluation, client, cast):
    client.force_login(cast.dave)

    response = client.post(f"/reports/evaluations/{evaluation.pk}/", HTTP_ACCEPT="application/json")

    assert response.status_code == 403


def test_the_status_endpoint_reports_progress(built, evaluation, client, cast):
    client.force_login(cast.dave)

    status = client.get(f"/reports/evaluations/{evaluation.pk}/{built.pk}/status/").json()

    assert status["status"] == "succeeded"
    assert status["progress"] == 100
    assert status["stale"] is False
    assert status["download_url"].endswith("/download/")


def test_a_team_member_downloads_the_pdf(built, evaluation, client, cast):
    client.force_login(cast.dave)

    response = client.get(f"/reports/evaluations/{evaluation.pk}/{built.pk}/download/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert b"".join(response.streaming_content).startswith(b"%PDF-")


@pytest.mark.parametrize("suffix", ["status/", "download/"])
def test_another_team_gets_404_for_a_report(built, evaluation, client, cast, suffix):
    client.force_login(cast.charlie)

    response = client.get(f"/reports/evaluations/{evaluation.pk}/{built.pk}/{suffix}")

    assert response.status_code == 404


# ---- API -----------------------------------------------------------------------------------------


def test_the_api_lists_an_evaluations_reports(built, evaluation, cast):
    answer = api(cast.dave).get(f"/api/v1/evaluations/{evaluation.pk}/reports/").json()

    (item,) = answer["results"]
    assert item["id"] == built.pk
    assert item["status"] == "succeeded"
    assert item["download_url"].endswith(f"/reports/{built.pk}/download/")


def test_the_api_queues_a_build_for_an_editor(evaluation, cast, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api(cast.bob).post(f"/api/v1/evaluations/{evaluation.pk}/reports/")

    assert response.status_code == 202
    assert Report.objects.get(pk=response.json()["id"]).status == Report.Status.SUCCEEDED


def test_the_api_builds_with_the_placement_cards_on_request(
    evaluation, cast, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api(cast.bob).post(
            f"/api/v1/evaluations/{evaluation.pk}/reports/", {"with_cards": True}, format="json"
        )

    assert response.status_code == 202
    assert response.json()["with_cards"] is True
    assert Report.objects.get(pk=response.json()["id"]).with_cards


def test_the_api_refuses_a_body_that_is_not_a_json_object(evaluation, cast):
    """The request body is an object of options (OpenAPI); `null`, or a form that parses to
    nothing, is not one and is refused, not taken for "no options" (schemathesis ST201)."""
    client = api(cast.bob)
    url = f"/api/v1/evaluations/{evaluation.pk}/reports/"

    null = client.post(url, data="null", content_type="application/json")
    multipart = client.post(url, {"with_cards": "yes"}, format="multipart")

    assert null.status_code == 400
    assert multipart.status_code == 415
    assert not Report.objects.exists()


def test_the_api_refuses_a_build_to_a_viewer(evaluation, cast):
    response = api(cast.dave).post(f"/api/v1/evaluations/{evaluation.pk}/reports/")

    assert response.status_code == 403


def test_the_api_serves_the_pdf(built, evaluation, cast):
    response = api(cast.dave).get(
        f"/api/v1/evaluations/{evaluation.pk}/reports/{built.pk}/download/",
        HTTP_ACCEPT="application/pdf",
    )

    assert response.status_code == 200
    assert b"".join(response.streaming_content).startswith(b"%PDF-")


def test_the_api_hides_another_teams_reports(built, evaluation, cast):
    client = api(cast.charlie)

    assert client.get(f"/api/v1/evaluations/{evaluation.pk}/reports/").status_code == 404
    url = f"/api/v1/evaluations/{evaluation.pk}/reports/{built.pk}/download/"
    assert client.get(url).status_code == 404


def test_the_schema_documents_the_report_endpoints(cast):
    schema = api(cast.bob).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    paths = schema.json()["paths"]
    create = paths["/api/v1/evaluations/{evaluation_pk}/reports/"]["post"]
    assert {"202", "403", "404"} <= set(create["responses"])
    download = paths["/api/v1/evaluations/{evaluation_pk}/reports/{id}/download/"]["get"]
    assert "application/pdf" in download["responses"]["200"]["content"]


# ---- the command ---------------------------------------------------------------------------------


def test_export_report_writes_the_pdf_and_stores_the_report(evaluation, tmp_path, capsys):
    target = tmp_path / "out" / "report.pdf"

    call_command("export_report", str(evaluation.pk), str(target))

    assert target.read_bytes().startswith(b"%PDF-")
    assert "pages in" in capsys.readouterr().out
    assert evaluation.reports.get().status == Report.Status.SUCCEEDED


def test_export_report_refuses_an_unknown_evaluation(db, tmp_path):
    with pytest.raises(CommandError, match="no evaluation 999999"):
        call_command("export_report", "999999", str(tmp_path / "x.pdf"))


# ---- content -------------------------------------------------------------------------------------


def _html(evaluation, **options) -> str:
    context = report_content.report_context(evaluation=evaluation, with_map=False, **options)
    return render_to_string(report_content.TEMPLATE, context)


def test_the_body_lists_the_candidates_and_the_full_cards_come_only_on_request(evaluation):
    plain, full = _html(evaluation), _html(evaluation, with_cards=True)

    for html in (plain, full):
        assert 'class="grid small candidates"' in html
        assert "hami/device-plugin" in html
    assert 'class="card ' not in plain and 'id="cards"' not in plain
    assert "left out to keep the report short" in plain
    assert full.count('class="card ') == 2
    assert 'href="#cards"' in full  # and the contents point at the appendix


def test_the_boundaries_the_team_rewrote_are_in_the_body(evaluation, cast):
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="boundaries",
        data={
            "boundaries": [
                {
                    "row": "hami/device-plugin",
                    "promise": "Splits each GPU for the inference pool.",
                    "non_promise": "Nothing about fairness between teams.",
                }
            ]
        },
    )

    html = _html(evaluation)

    assert "Boundaries the team wrote" in html
    assert "Nothing about fairness between teams." in html


def test_a_map_drawn_once_is_reused_for_the_same_candidates(evaluation, cast, monkeypatch):
    drawn = []
    monkeypatch.setattr(
        report_content, "map_print_image", lambda **kw: drawn.append(1) or TINY_JPEG
    )

    for _ in range(2):
        report = reports.report_create(evaluation=evaluation, actor=cast.bob)
        assert reports.report_build(report_id=report.pk).status == Report.Status.SUCCEEDED

    assert len(drawn) == 1


def test_conflicts_are_grouped_by_what_the_pair_cannot_share():
    def conflict(a, b, tokens, pools=()):
        return Conflict(a, b, tuple(tokens), tuple(pools), f"{a} and {b} conflict")

    gpu, mig = "owner:node/nvidia-gpu", "owner:node/mig-layout"
    broken, groups = report_content._conflict_groups(
        [
            conflict("a/x", "b/x", [gpu]),
            conflict("a/x", "c/x", [gpu, mig]),
            conflict("b/x", "c/x", [gpu]),
            conflict("d/x", "e/x", [gpu], pools=["shared"]),
        ],
        {"a/x": 1, "b/x": 2, "c/x": 3},
    )

    assert [c.a for c in broken] == ["d/x"]  # it breaks the decision: said in full
    by_token = {group.tokens: group for group in groups}
    assert by_token[gpu].members == [(1, "a/x"), (2, "b/x"), (3, "c/x")]
    assert by_token[gpu].complete
    assert by_token[mig].refs == ["a/x", "c/x"]


def test_the_evidence_says_each_repository_once_and_names_each_file():
    project = SimpleNamespace(slug="amd", name="AMD DRA driver")
    row = SimpleNamespace(
        project=project,
        evidence=[
            {"url": "https://github.com/ROCm/k8s-gpu-dra-driver/blob/v1.0/docs/README.md#L85"},
            "https://github.com/ROCm/k8s-gpu-dra-driver/blob/v1.0/a/b/values.yaml",
            {
                "url": "https://kubernetes.io/docs/concepts/x/",
                "title": "Dynamic resource allocation",
            },
        ],
    )

    (item,) = report_content._evidence([SimpleNamespace(number=1, row=row)])

    places = {
        place["where"]: [link["label"] for link in place["links"]] for place in item["places"]
    }
    assert places == {
        "ROCm/k8s-gpu-dra-driver": ["docs/README.md L85", "…/b/values.yaml"],
        "kubernetes.io": ["Dynamic resource allocation"],
    }
    assert item["count"] == 3


def test_the_audit_log_folds_repeated_saves():
    bob = SimpleNamespace(get_username=lambda: "bob")
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

    def entry(minute, action, step="", revision=1):
        return SimpleNamespace(
            actor=bob,
            action=action,
            step=step,
            state_from="",
            state_to="",
            revision=revision,
            created_at=start + timedelta(minutes=minute),
        )

    newest_first = [
        entry(9, "decided", revision=6),
        entry(8, "step_saved", "candidates", 5),
        entry(7, "step_saved", "candidates", 4),
        entry(6, "step_saved", "candidates", 3),
        entry(1, "created"),
    ]

    runs = report_lists.audit_runs(newest_first)

    assert [(run["entry"].action, run["count"]) for run in runs] == [
        ("decided", 1),
        ("step_saved", 3),
        ("created", 1),
    ]
    assert runs[1]["first"].revision == 3 and runs[1]["entry"].revision == 5


def test_risks_and_checks_become_list_items():
    assert report_lists.text_items("- noisy neighbours\n\n* drains nodes\n•\tslow\nplain") == [
        "noisy neighbours",
        "drains nodes",
        "slow",
        "plain",
    ]
