"""Import pages: the job list and upload form, a job's page, and the unplaced work queue."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog.engine.formats import csv_template
from catalog.imports.models import ImportJob
from catalog.models import Project, Tag
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

LIST_URL = reverse("imports:list")
UPLOAD_URL = reverse("imports:upload")
UNPLACED_URL = reverse("imports:unplaced")


def upload(client, text: str, name: str = "vendor.csv", **fields):
    data = {"file": SimpleUploadedFile(name, text.encode(), content_type="text/csv"), **fields}
    return client.post(UPLOAD_URL, data)


def recorded_jobs(count: int, *, user=None) -> None:
    ImportJob.objects.bulk_create(
        ImportJob(
            created_by=user,
            source=f"vendor-{i}.csv",
            format=ImportJob.Format.CSV,
            status=ImportJob.Status.SUCCEEDED,
            total=2,
            done=2,
            counts={
                "projects": {"created": 1, "updated": 0, "unchanged": 0},
                "rows": {"created": 1, "updated": 0, "unchanged": 0},
            },
        )
        for i in range(count)
    )


def unplaced_projects(count: int) -> None:
    apply(
        bundle(*[project(f"landscape-{i:04d}", tags=[f"category-{i % 4}"]) for i in range(count)])
    )


@pytest.mark.parametrize(
    "url",
    [
        LIST_URL,
        UNPLACED_URL,
        reverse("imports:detail", args=["0b6e3a4c-0000-4000-8000-000000000000"]),
    ],
)
def test_anonymous_visitors_are_sent_to_sign_in(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_anonymous_uploads_are_sent_to_sign_in_and_write_nothing(client):
    response = upload(client, csv_template())

    assert response.status_code == 302
    assert ImportJob.objects.count() == 0


def test_a_reader_sees_the_imports_but_no_upload_form(bob_client, alice):
    recorded_jobs(1, user=alice)

    response = bob_client.get(LIST_URL)

    assert response.status_code == 200
    assert b"vendor-0.csv" in response.content
    assert b'enctype="multipart/form-data"' not in response.content


def test_a_reader_is_told_why_there_is_no_form_and_whom_to_ask(bob_client, alice):
    # Issue 32 item 6: a non-maintainer saw the page with no form and no reason.
    alice.first_name, alice.last_name = "Alice", "Maintainer"
    alice.save()

    response = bob_client.get(LIST_URL)

    text = response.content.decode()
    assert "Why there is no upload form" in text
    assert "catalog-maintainer permission" in text
    assert "Alice Maintainer" in text
    assert "bob" not in text.split("Why there is no upload form")[1].split("</section>")[0]


def test_a_maintainer_is_not_shown_the_reason(alice_client):
    response = alice_client.get(LIST_URL)

    assert "Why there is no upload form" not in response.content.decode()


def test_a_reader_cannot_upload(bob_client):
    response = upload(bob_client, csv_template())

    assert response.status_code == 403
    assert ImportJob.objects.count() == 0
    assert Project.objects.count() == 0


def test_a_maintainer_sees_the_upload_form_and_the_template_link(alice_client):
    response = alice_client.get(LIST_URL)

    assert b'enctype="multipart/form-data"' in response.content
    assert reverse("api:import-csv-template").encode() in response.content


def test_a_maintainers_csv_upload_is_applied_and_leads_to_its_job_page(alice_client, alice):
    response = upload(alice_client, csv_template(), source="Example Inc.")

    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("imports:detail", args=[job.pk])
    assert (job.status, job.created_by, job.source, job.format) == (
        "succeeded",
        alice,
        "Example Inc.",
        "csv",
    )
    page = alice_client.get(response["Location"])
    assert page.context["job"].counts["rows"]["created"] == 1
    assert b"example-plugin" in page.content
    assert b"Import applied." in page.content
    assert Project.objects.filter(slug="example-plugin").exists()


def test_the_file_name_is_the_source_when_none_is_given(alice_client):
    upload(alice_client, csv_template(), name="acme.csv")

    assert ImportJob.objects.get().source == "acme.csv"


def test_a_dry_run_upload_reports_and_writes_nothing(alice_client):
    response = upload(alice_client, csv_template(), dry_run="on")

    page = alice_client.get(response["Location"])
    assert page.context["job"].dry_run is True
    assert page.context["job"].counts["projects"]["created"] == 1
    assert Project.objects.count() == 0


def test_a_rejected_upload_shows_every_error_with_its_line_and_writes_nothing(alice_client):
    bad = csv_template().replace(",data_plane,", ",gpu_plane,")

    response = upload(alice_client, bad)

    job = ImportJob.objects.get()
    assert job.status == "failed"
    assert response["Location"] == reverse("imports:detail", args=[job.pk])
    page = alice_client.get(response["Location"])
    content = page.content.decode()
    assert "rejected and nothing was written" in content
    assert "projects[0].placements[0].layer" in content
    assert "line 2" in content
    assert "control_plane" in content  # the allowed values
    assert Project.objects.count() == 0


def test_an_upload_without_a_file_is_refused_with_the_form_error(alice_client):
    response = alice_client.post(UPLOAD_URL, {"source": "x"})

    assert response.status_code == 400
    assert response.context["form"].errors["file"]
    assert ImportJob.objects.count() == 0


def test_a_file_that_is_not_utf8_is_refused(alice_client):
    data = {"file": SimpleUploadedFile("x.csv", b"\xff\xfe\x00bad", content_type="text/csv")}

    response = alice_client.post(UPLOAD_URL, data)

    assert response.status_code == 400
    assert ImportJob.objects.count() == 0


@override_settings(IMPORT_INLINE_MAX_ITEMS=0)
def test_a_queued_import_page_polls_the_api_for_progress(
    alice_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        response = upload(alice_client, csv_template())

    job = ImportJob.objects.get()
    assert job.status == "pending"
    page = alice_client.get(response["Location"]).content.decode()
    assert "js/import_progress.js" in page
    assert f'data-url="{reverse("api:import-detail", args=[job.pk])}"' in page


def test_a_finished_import_page_does_not_poll(alice_client):
    response = upload(alice_client, csv_template())

    page = alice_client.get(response["Location"]).content.decode()
    assert "js/import_progress.js" not in page


def test_an_update_shows_the_field_by_field_changes(alice_client):
    upload(alice_client, csv_template())
    changed = csv_template().replace("Does not decide which pod gets it.", "Now it does.")

    response = upload(alice_client, changed)

    page = alice_client.get(response["Location"]).content.decode()
    assert "non_promise" in page
    assert "Does not decide which pod gets it." in page
    assert "Now it does." in page


def test_an_unknown_job_is_a_404(alice_client):
    url = reverse("imports:detail", args=["0b6e3a4c-0000-4000-8000-000000000000"])

    assert alice_client.get(url).status_code == 404


def test_the_unplaced_queue_lists_only_unplaced_projects(bob_client):
    apply(
        bundle(project("hami", placement("device-plugin")), project("fluid"), project("gpustack"))
    )

    response = bob_client.get(UNPLACED_URL)

    listed = [p.slug for p in response.context["page"].object_list]
    assert listed == ["fluid", "gpustack"]


def test_the_unplaced_queue_counts_unplaced_projects_by_tag(bob_client):
    apply(
        bundle(
            project("hami", placement("device-plugin"), tags=["Scheduling"]),
            project("fluid", tags=["Scheduling"]),
            project("gpustack", tags=["Scheduling", "Serving"]),
        )
    )
    Tag.objects.create(slug="orphan", name="Orphan")  # a tag on no project at all

    response = bob_client.get(UNPLACED_URL)

    counts = {tag.name: tag.project_count for tag in response.context["tags"]}
    assert counts == {"Scheduling": 2, "Serving": 1}


def test_the_unplaced_queue_is_searchable_and_filterable_by_tag(bob_client):
    apply(
        bundle(
            project("fluid", tags=["Storage"]),
            project("gpustack", tags=["Serving"]),
            project("kserve", tags=["Serving"]),
        )
    )

    by_text = bob_client.get(UNPLACED_URL, {"q": "gpust"}).context["page"].object_list
    by_tag = bob_client.get(UNPLACED_URL, {"tag": "serving"}).context["page"].object_list

    assert [p.slug for p in by_text] == ["gpustack"]
    assert [p.slug for p in by_tag] == ["gpustack", "kserve"]


def _queries(client, url) -> int:
    """Queries of a warm request (the first after a write may fill the page's caches)."""
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_imports_list_query_count_does_not_grow_with_the_jobs(alice_client, alice):
    recorded_jobs(10, user=alice)
    few = _queries(alice_client, LIST_URL)
    recorded_jobs(190, user=alice)

    assert _queries(alice_client, LIST_URL) == few


def test_the_unplaced_queue_query_count_does_not_grow_with_the_projects(bob_client):
    unplaced_projects(10)
    few = _queries(bob_client, UNPLACED_URL)
    apply(bundle(*[project(f"more-{i:04d}", tags=[f"other-{i % 7}"]) for i in range(190)]))

    assert _queries(bob_client, UNPLACED_URL) == few


@pytest.fixture
def import_rate(settings, monkeypatch):
    """Two imports a minute, in the settings and where DRF's base throttle read them at import."""
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "import": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    yield
    cache.clear()


def test_uploads_over_the_import_rate_are_refused_with_when_to_retry(import_rate, alice_client):
    for _ in range(2):
        assert upload(alice_client, csv_template(), dry_run="on").status_code == 302

    refused = upload(alice_client, csv_template(), dry_run="on")

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "nothing was imported. Try again in" in refused.content.decode()
    assert ImportJob.objects.count() == 2


def test_the_upload_page_and_the_api_share_one_import_budget(import_rate, alice, alice_client):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(alice)
    for _ in range(2):
        response = api.post(
            "/api/v1/imports/?dry_run=true", bundle(project("kueue")), format="json"
        )
        assert response.status_code == 201

    assert upload(alice_client, csv_template(), dry_run="on").status_code == 429
    assert ImportJob.objects.count() == 2
