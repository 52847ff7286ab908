"""Step 1 saves field by field: one bad answer is marked and the valid ones are kept, in the page
POST and in the autosave; "still to answer" lists only what is really missing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.audit.models import AuditEntry
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db

# Everything step 1 asks, as the page posts it.
FILLED = {
    "workload_types": ["training", "online_inference"],
    "window_training": "night",
    "window_online_inference": "always",
    "primary_objective": "p99_latency",
    "p99_target_ms": "200",
    "jitter_tolerance": "low",
    "isolation": "soft",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "tenant_count": "4",
    "gpu_model": "A100 80GB",
    "gpu_memory_gb": "80",
    "node_count": "6",
    "priority_1": "isolation",
    "priority_2": "observability",
    "priority_3": "cost",
    "priority_4": "compatibility",
}


@pytest.fixture
def cast(db):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def post(client, user, evaluation, data, *, autosave=False):
    client.force_login(user)
    url = reverse("evaluations:step", args=[evaluation.pk, 1])
    headers = {"HTTP_X_AUTOSAVE": "1"} if autosave else {}
    return client.post(url, {**data, "revision": evaluation.revision}, **headers)


def stored(evaluation) -> dict:
    return Evaluation.objects.get(pk=evaluation.pk).profile


# Partial saves


def test_a_priority_ranked_twice_keeps_every_other_answer_on_the_page(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "priority_2": "isolation"})

    assert response.status_code == 400
    profile = stored(evaluation)
    assert profile["workload_types"] == ["training", "online_inference"]
    assert profile["tenancy"] == "multi"
    assert profile["gpu_model"] == "A100 80GB"
    assert profile["time_windows"] == {"training": "night", "online_inference": "always"}
    # The ranks before and after the repeat still count; the repeat itself does not.
    assert profile["priorities"] == ["isolation", "cost", "compatibility"]


def test_a_priority_ranked_twice_marks_only_that_control(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "priority_2": "isolation"})

    form = response.context["form"]
    assert list(form.errors) == ["priority_2"]
    content = response.content.decode()
    assert content.count('aria-invalid="true"') == 1
    assert 'name="priority_2" aria-invalid="true"' in content or (
        'aria-invalid="true" id="id_priority_2"' in content
    )
    assert content.count("Each priority can be ranked once.") == 1
    # The next save goes on top of the one that kept the valid answers.
    revision = Evaluation.objects.get(pk=evaluation.pk).revision
    assert revision == evaluation.revision + 1
    assert f'name="revision" value="{revision}"' in content


def test_the_autosave_keeps_the_valid_answers_and_returns_the_one_error(client, cast, evaluation):
    response = post(
        client, cast.bob, evaluation, {**FILLED, "priority_3": "isolation"}, autosave=True
    )

    assert response.status_code == 400
    body = response.json()
    assert body["saved"] is True
    assert list(body["errors"]) == ["priority_3"]
    assert body["revision"] == Evaluation.objects.get(pk=evaluation.pk).revision
    assert body["missing"] == []  # every question has a stored answer
    assert stored(evaluation)["jitter_tolerance"] == "low"


def test_a_p99_that_is_not_a_number_keeps_the_stored_target(client, cast, evaluation):
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"p99_target_ms": 150}
    )
    evaluation.refresh_from_db()

    response = post(
        client, cast.bob, evaluation, {**FILLED, "p99_target_ms": "fast"}, autosave=True
    )

    assert list(response.json()["errors"]) == ["p99_target_ms"]
    profile = stored(evaluation)
    assert profile["p99_target_ms"] == 150
    assert profile["isolation"] == "soft"


def test_an_unknown_time_window_is_marked_and_the_others_kept(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "window_training": "lunchtime"})

    assert list(response.context["form"].errors) == ["window_training"]
    assert stored(evaluation)["time_windows"] == {"online_inference": "always"}
    assert stored(evaluation)["node_count"] == 6


def test_more_tenants_than_a_single_tenancy_allows_is_marked_on_the_count(client, cast, evaluation):
    response = post(
        client, cast.bob, evaluation, {**FILLED, "tenancy": "single", "tenant_count": "3"}
    )

    errors = response.context["form"].errors
    assert list(errors) == ["tenant_count"]
    assert "contradict" in errors["tenant_count"][0]
    profile = stored(evaluation)
    assert profile["tenancy"] == "single"
    assert profile["tenant_count"] is None


def test_a_valid_save_answers_as_before(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "go": "next"})

    assert response.status_code == 302
    profile = stored(evaluation)
    assert profile["gpu_memory_gb"] == 80
    assert profile["tenant_count"] == 4
    assert AuditEntry.objects.filter(evaluation=evaluation, action="step_saved").count() == 1


def test_a_partial_save_over_a_newer_revision_is_still_a_conflict(client, cast, evaluation):
    loaded = evaluation.revision
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"tenancy": "multi"}
    )
    client.force_login(cast.bob)
    url = reverse("evaluations:step", args=[evaluation.pk, 1])

    response = client.post(
        url, {**FILLED, "priority_2": "isolation", "revision": loaded}, HTTP_X_AUTOSAVE="1"
    )

    assert response.status_code == 409
    assert response.json()["revision"] == loaded + 1
    assert stored(evaluation)["gpu_model"] is None


def test_time_windows_of_unticked_workload_types_are_not_stored(client, cast, evaluation):
    post(client, cast.bob, evaluation, {**FILLED, "window_batch": "weekend"})

    assert "batch" not in stored(evaluation)["time_windows"]


# Still to answer


def test_a_fully_filled_page_has_nothing_left_to_answer(client, cast, evaluation):
    post(client, cast.bob, evaluation, {**FILLED, "go": "stay"})

    page = client.get(reverse("evaluations:step", args=[evaluation.pk, 1]))

    assert page.context["missing"] == []
    assert "Step 1 is complete." in page.content.decode()
    assert Evaluation.objects.get(pk=evaluation.pk).profile_done


def test_a_fully_filled_autosave_has_nothing_left_to_answer(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, FILLED, autosave=True)

    assert response.status_code == 200
    assert response.json()["missing"] == []
    assert response.json()["done"] is True


def test_still_to_answer_lists_only_the_missing_question(client, cast, evaluation):
    data = {key: value for key, value in FILLED.items() if key != "jitter_tolerance"}

    response = post(client, cast.bob, evaluation, {**data, "priority_2": "isolation"})

    assert response.context["missing"] == ["Jitter tolerance"]


def test_the_cluster_facts_are_optional(client, cast, evaluation):
    data = {
        key: value
        for key, value in FILLED.items()
        if key not in ("gpu_model", "gpu_memory_gb", "node_count", "tenant_count")
        and not key.startswith("window_")
    }

    response = post(client, cast.bob, evaluation, data, autosave=True)

    assert response.json()["missing"] == []


def test_a_tenant_count_answers_tenancy(client, cast, evaluation):
    data = {key: value for key, value in FILLED.items() if key != "tenancy"}

    response = post(client, cast.bob, evaluation, data, autosave=True)

    assert response.json()["missing"] == []
    assert stored(evaluation)["tenancy"] is None  # not said, implied by the count


def test_the_page_shows_the_stored_cluster_facts_and_windows(client, cast, evaluation):
    post(client, cast.bob, evaluation, FILLED)

    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert 'value="A100 80GB"' in content
    assert '<option value="night" selected>' in content


def test_the_overview_summarises_the_new_answers_in_words(client, cast, evaluation):
    post(client, cast.bob, evaluation, FILLED)

    content = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()

    assert "Training: at night; Online inference: always" in content
    assert "80 GB" in content
    assert "Number of tenants" in content


def test_the_report_lists_the_cluster_facts_only_when_answered():
    from evaluations.reports.content import profile_rows

    answered = dict(profile_rows({"gpu_model": "H100", "gpu_memory_gb": 80, "node_count": 2}))
    unanswered = dict(profile_rows({}))

    assert answered["GPU model"] == "H100"
    assert answered["Memory per GPU"] == "80 GB"
    assert answered["GPU nodes"] == "2"
    assert "GPU model" not in unanswered
    assert unanswered["Tenancy"] == "not answered"


def test_the_api_takes_the_new_fields(client, cast, evaluation):
    client.force_login(cast.bob)

    response = client.put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/",
        {
            "workload_types": ["training"],
            "time_windows": {"training": "weekend"},
            "gpu_memory_gb": 40,
            "tenant_count": 2,
            "revision": evaluation.revision,
        },
        content_type="application/json",
    )

    assert response.status_code == 200
    profile = stored(evaluation)
    assert profile["time_windows"] == {"training": "weekend"}
    assert profile["tenant_count"] == 2
    # Two tenants make the profile multi-tenant though tenancy was not said.
    assert Evaluation.objects.get(pk=evaluation.pk).engine_profile().tenancy == "multi"


def test_the_api_refuses_an_unknown_time_window(client, cast, evaluation):
    client.force_login(cast.bob)

    response = client.put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/",
        {
            "workload_types": ["training"],
            "time_windows": {"training": "lunch"},
            "revision": evaluation.revision,
        },
        content_type="application/json",
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "time_windows.training"


def test_a_nul_in_the_gpu_model_is_marked_not_a_server_error(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "gpu_model": "A100\x00"})

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["gpu_model"]
    assert stored(evaluation)["node_count"] == 6


# Cross-tenant sharing, isolation per workload type, the GPU model's facts


def test_the_cross_tenant_answer_and_the_isolation_per_type_are_saved(client, cast, evaluation):
    data = {
        **FILLED,
        "workload_types": ["training", "online_inference", "interactive"],
        "cross_tenant_sharing": "never",
        "isolation_interactive": "soft",
        "isolation_training": "hard",
    }

    response = post(client, cast.bob, evaluation, data, autosave=True)

    assert response.status_code == 200
    profile = stored(evaluation)
    assert profile["cross_tenant_sharing"] == "never"
    assert profile["workload_isolation"] == {"training": "hard", "interactive": "soft"}
    assert Evaluation.objects.get(pk=evaluation.pk).engine_profile().tenant_rule == "never"


def test_an_unknown_cross_tenant_answer_is_marked_and_the_others_kept(client, cast, evaluation):
    response = post(
        client, cast.bob, evaluation, {**FILLED, "cross_tenant_sharing": "sometimes"}, autosave=True
    )

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["cross_tenant_sharing"]
    profile = stored(evaluation)
    assert profile["cross_tenant_sharing"] is None
    assert profile["tenant_count"] == 4


def test_an_unknown_isolation_for_a_type_is_marked_and_the_others_kept(client, cast, evaluation):
    data = {**FILLED, "isolation_training": "iron", "isolation_online_inference": "hard"}

    response = post(client, cast.bob, evaluation, data, autosave=True)

    assert list(response.json()["errors"]) == ["isolation_training"]
    assert stored(evaluation)["workload_isolation"] == {"online_inference": "hard"}
    assert stored(evaluation)["node_count"] == 6


def test_isolation_of_unticked_workload_types_is_not_stored(client, cast, evaluation):
    post(client, cast.bob, evaluation, {**FILLED, "isolation_batch": "none"})

    assert not stored(evaluation)["workload_isolation"]


def test_the_page_shows_the_stored_isolation_per_type_and_cross_tenant_answer(
    client, cast, evaluation
):
    data = {**FILLED, "cross_tenant_sharing": "allowed", "isolation_online_inference": "soft"}
    post(client, cast.bob, evaluation, data)

    form = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).context["form"]

    assert form["isolation_online_inference"].value() == "soft"
    assert form["cross_tenant_sharing"].value() == "allowed"


def test_an_empty_cross_tenant_answer_says_what_it_derives_to(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "isolation": "hard"}, autosave=True)

    note = response.json()["notes"]["cross_tenant_sharing"]["text"]
    assert note == (
        "Left empty, this is: only through hard partitions (MIG: memory, compute and fault)."
    )


def test_an_unknown_gpu_model_is_stored_and_warned_about(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**FILLED, "gpu_model": "Quadro 9000X"})

    assert response.status_code == 302  # saved: an unknown model is never an error
    assert stored(evaluation)["gpu_model"] == "Quadro 9000X"
    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()
    assert "Not in EcoMap&#x27;s GPU facts: MIG and vendor are not checked." in content
    assert 'class="field-note note-warn" data-note-for="gpu_model"' in content


def test_the_autosave_warns_about_an_unknown_gpu_model(client, cast, evaluation):
    response = post(
        client, cast.bob, evaluation, {**FILLED, "gpu_model": "Quadro 9000X"}, autosave=True
    )

    assert response.status_code == 200
    note = response.json()["notes"]["gpu_model"]
    assert note["kind"] == "warn"
    assert "MIG and vendor are not checked" in note["text"]


def test_a_known_gpu_model_in_any_case_suggests_its_memory(client, cast, evaluation):
    data = {**FILLED, "gpu_model": "h100", "gpu_memory_gb": ""}

    notes = post(client, cast.bob, evaluation, data, autosave=True).json()["notes"]

    assert notes["gpu_model"]["kind"] == "hint"
    assert notes["gpu_model"]["text"].startswith("NVIDIA H100 80GB in the GPU facts")
    assert notes["gpu_memory_gb"]["placeholder"] == "80"
    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()
    assert 'placeholder="80"' in content


def test_a_memory_the_team_said_needs_no_suggestion(client, cast, evaluation):
    data = {**FILLED, "gpu_model": "h100", "gpu_memory_gb": "94"}

    notes = post(client, cast.bob, evaluation, data, autosave=True).json()["notes"]

    assert notes["gpu_memory_gb"]["text"] == ""


def test_the_gpu_model_offers_the_models_of_the_gpu_facts(client, cast, evaluation):
    client.force_login(cast.bob)

    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert 'list="gpu-models"' in content
    assert '<datalist id="gpu-models">' in content
    assert '<option value="NVIDIA H100 80GB">' in content
    assert '<option value="AMD Instinct MI300X">' in content


def test_the_overview_says_the_new_answers_in_words(client, cast, evaluation):
    data = {
        **FILLED,
        "workload_types": ["training", "interactive"],
        "cross_tenant_sharing": "hard_partitions",
        "isolation_interactive": "soft",
    }
    post(client, cast.bob, evaluation, data)

    summary = dict(
        client.get(reverse("evaluations:detail", args=[evaluation.pk])).context["profile_summary"]
    )

    assert summary["GPUs shared between tenants"].startswith("only through hard partitions")
    assert summary["Isolation per workload type"] == "Interactive development: soft"


def test_the_report_says_the_cross_tenant_answer_and_isolation_per_type_in_words():
    from evaluations.reports.content import profile_rows

    rows = dict(
        profile_rows(
            {"cross_tenant_sharing": "never", "workload_isolation": {"interactive": "soft"}}
        )
    )

    assert rows["GPUs shared between tenants"] == "never: a GPU serves one tenant at a time"
    assert rows["Isolation per workload type"] == "Interactive development: soft"
