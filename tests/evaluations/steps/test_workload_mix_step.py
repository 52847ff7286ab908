"""Step 1's workload mix on the page: typed lines saved and shown back, a bad line marked and
kept as typed, an openb trace read into the mix within its caps; never a 500."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evaluations.models import Evaluation
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.steps.test_profile_step import FILLED

pytestmark = pytest.mark.django_db

HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
)


@pytest.fixture
def cast(db):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def step_1(evaluation) -> str:
    return reverse("evaluations:step", args=[evaluation.pk, 1])


def upload(client, user, evaluation, content: bytes, name: str = "pods.csv"):
    client.force_login(user)
    return client.post(
        reverse("evaluations:trace-upload", args=[evaluation.pk]),
        {"trace": SimpleUploadedFile(name, content, content_type="text/csv")},
    )


def test_typed_mix_lines_are_saved_and_shown_back(client, cast, evaluation):
    client.force_login(cast.bob)
    mix = "1, training, 10, 8, 1000\n*, online_inference, 200, 1, 250"

    response = client.post(step_1(evaluation), {**FILLED, "workload_mix": mix, "go": "stay"})

    assert response.status_code == 302
    stored = Evaluation.objects.get(pk=evaluation.pk).profile["workload_mix"]
    assert [(e["tenant"], e["workload"], e["tasks"]) for e in stored] == [
        (1, "training", 10),
        (None, "online_inference", 200),
    ]
    assert mix in client.get(step_1(evaluation)).content.decode()


def test_a_bad_mix_line_is_marked_kept_as_typed_and_the_other_answers_saved(
    client, cast, evaluation
):
    client.force_login(cast.bob)
    typed = "1, training, -10, 8, 1000"

    response = client.post(step_1(evaluation), {**FILLED, "workload_mix": typed, "go": "stay"})

    assert response.status_code == 400
    assert response.context["form"].errors["workload_mix"] == [
        "line 1: tasks must be a whole number from 1 to 1000000, not -10"
    ]
    assert typed in response.content.decode()
    saved = Evaluation.objects.get(pk=evaluation.pk).profile
    assert saved["node_count"] == 6 and saved["workload_mix"] is None


def test_a_tenant_beyond_the_tenant_count_is_marked_on_the_mix(client, cast, evaluation):
    client.force_login(cast.bob)

    response = client.post(
        step_1(evaluation), {**FILLED, "workload_mix": "9, training, 1, 1, 1000", "go": "stay"}
    )

    assert response.status_code == 400
    assert "tenant must be a whole number from 1 to 4, not 9" in str(
        response.context["form"].errors["workload_mix"]
    )


def test_a_trace_is_read_into_the_mix_and_said_in_a_message(client, cast, evaluation):
    trace = HEADER + "p0,1,1,1,500,,LS,Running,0,1,0\n" * 3 + "p1,1,1,0,0,,BE,Running,0,1,0\n"

    response = upload(client, cast.bob, evaluation, trace.encode())

    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Read 4 tasks from the trace: 3 ask for GPUs" in page
    stored = Evaluation.objects.get(pk=evaluation.pk).profile["workload_mix"]
    assert stored == [{"tenant": None, "workload": "online_inference", "tasks": 3, "gpus": 1,
                       "gpu_milli": 500, "memory_gb": None, "gpu_types": []}]  # fmt: skip


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (HEADER + "p0,1,1,1,1000,Voodoo5,LS,Running,0,1,0\n", "line 2: unknown GPU type"),
        (HEADER + "p0,1,1,-2,1000,,LS,Running,0,1,0\n", "line 2: num_gpu must be a whole"),
        ("just some text\n", "the trace has no num_gpu, gpu_milli column"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
        # 45,000 tasks (under the line cap) with long names: 4.6 MB, over the byte cap.
        (HEADER + ("p" * 80 + ",1,1,1,500,,LS,Running,0,1,0\n") * 45_000, "larger than 4 MB"),
        (HEADER + "p,1,1,1,500,,LS,Running,0,1,0\n" * 90_000, "more than 80,000 tasks"),
    ],
)
def test_a_bad_trace_is_marked_on_the_upload_and_the_profile_kept(
    client, cast, evaluation, content, says
):
    before = Evaluation.objects.get(pk=evaluation.pk).profile
    content = content if isinstance(content, bytes) else content.encode()

    response = upload(client, cast.bob, evaluation, content)

    assert response.status_code == 400
    assert says in " ".join(response.context["trace_form"].errors["trace"])
    assert Evaluation.objects.get(pk=evaluation.pk).profile == before


def test_a_body_past_the_upload_limit_is_refused_before_it_is_read(
    client, cast, evaluation, settings
):
    settings.IMPORT_MAX_BYTES = 5 * 1024 * 1024

    response = upload(client, cast.bob, evaluation, b"x" * (6 * 1024 * 1024))

    assert response.status_code == 413
    assert "over the limit" in response.content.decode()


def test_a_viewer_cannot_upload_a_trace(client, cast, evaluation):
    response = upload(
        client, cast.dave, evaluation, (HEADER + "p,1,1,1,500,,LS,R,0,1,0\n").encode()
    )

    assert response.status_code == 403
    assert Evaluation.objects.get(pk=evaluation.pk).profile.get("workload_mix") in (None, [])
