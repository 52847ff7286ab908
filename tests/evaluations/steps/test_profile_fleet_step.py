"""Step 1's node groups, named tenants and installed components (profile v2): saved through the
page's rows and read back, rows added and removed without JavaScript, and a bad row marked on
the row while everything else is kept."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from catalog.models import Project
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db

# The hospital of issue 38: 6 nodes × 4 A100 40GB and 4 nodes × 2 L4, three tenants who run
# different work, Kueue installed.
GROUPS = [
    {"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
    {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2},
]
TENANTS = [
    {
        "name": "clinical",
        "workloads": ["online_inference"],
        "cross_tenant_sharing": "never",
        "demand": [{"workload": "online_inference", "replicas": 12, "when": "always"}],
    },
    {
        "name": "research",
        "workloads": ["training"],
        "demand": [{"workload": "training", "gpus": 16, "when": "window"}],
    },
    {
        "name": "students",
        "workloads": ["interactive"],
        "demand": [
            {"workload": "interactive", "replicas": 30, "mig_profile": "1g.10gb", "when": "always"}
        ],
    },
]
INSTALLED = [{"project": "kueue", "version": "0.10.1"}]

ANSWERS = {
    "workload_types": ["training", "online_inference", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": "120",
    "jitter_tolerance": "low",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "kubernetes_version": "1.31",
    "priority_1": "isolation",
}


def rows(prefix: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """`items` as the page posts a formset: the management form and one key per control."""
    data: dict[str, Any] = {
        f"{prefix}-TOTAL_FORMS": str(len(items)),
        f"{prefix}-INITIAL_FORMS": "0",
    }
    for index, item in enumerate(items):
        for key, value in item.items():
            if key == "demand":
                data |= rows(f"{prefix}-{index}-demand", value)
            elif value is not None:
                data[f"{prefix}-{index}-{key}"] = value if isinstance(value, list) else str(value)
    return data


def page_data(groups=GROUPS, tenants=TENANTS, installed=INSTALLED, **answers) -> dict[str, Any]:
    return {
        **ANSWERS,
        **rows("node_groups", groups),
        **rows("tenants", tenants),
        **rows("installed", installed),
        **answers,
    }


@pytest.fixture
def cast(db):
    Project.objects.create(slug="kueue", name="Kueue")
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def post(client, user, evaluation, data, *, autosave=False):
    client.force_login(user)
    url = reverse("evaluations:step", args=[evaluation.pk, 1])
    evaluation.refresh_from_db()
    headers = {"HTTP_X_AUTOSAVE": "1"} if autosave else {}
    return client.post(url, {**data, "revision": evaluation.revision}, **headers)


def step_page(client, user, evaluation):
    client.force_login(user)
    return client.get(reverse("evaluations:step", args=[evaluation.pk, 1]))


def stored(evaluation) -> dict:
    return Evaluation.objects.get(pk=evaluation.pk).profile


# The hospital, saved and read back


def test_the_hospital_saved_through_step_one_is_stored_as_said(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**page_data(), "go": "stay"})

    assert response.status_code == 302
    profile = stored(evaluation)
    assert profile["node_groups"] == GROUPS
    assert profile["tenants"] == TENANTS
    assert profile["installed"] == INSTALLED
    # One cluster described once: the groups say the model and the nodes, the names the count.
    assert profile["gpu_model"] is None
    assert profile["node_count"] is None
    assert profile["tenant_count"] is None


def test_the_hospital_reads_back_into_the_same_rows(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())

    form = step_page(client, cast.bob, evaluation).context["form"]
    assert [group.initial for group in form.fleet.node_groups] == GROUPS
    assert [tenant["name"].value() for tenant in form.fleet.tenants] == [
        "clinical",
        "research",
        "students",
    ]
    students = form.fleet.tenants.forms[2]
    assert students["workloads"].value() == ["interactive"]
    assert students.demand.forms[0]["mig_profile"].value() == "1g.10gb"
    assert form.fleet.installed.forms[0]["project"].value() == "kueue"


def test_saving_the_page_again_unchanged_records_no_change(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())
    revision = Evaluation.objects.get(pk=evaluation.pk).revision

    post(client, cast.bob, evaluation, page_data())

    assert Evaluation.objects.get(pk=evaluation.pk).revision == revision


def test_the_page_shows_the_groups_instead_of_the_single_model_fields(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())

    content = step_page(client, cast.bob, evaluation).content.decode()

    assert 'name="gpu_model"' not in content
    assert 'name="node_count"' not in content
    assert 'name="tenant_count"' not in content
    assert 'value="A100 40GB"' in content
    assert "NVIDIA A100 40GB in the GPU facts" in content


def test_a_profile_without_groups_shows_the_single_fields_as_before(client, cast, evaluation):
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={"gpu_model": "A100 80GB", "node_count": 4, "tenant_count": 3},
    )

    content = step_page(client, cast.bob, evaluation).content.decode()

    assert 'name="gpu_model"' in content and 'value="A100 80GB"' in content
    assert 'name="tenant_count"' in content
    assert 'value="add:node_groups"' in content


# A bad row


def test_a_bad_tenant_name_is_marked_on_its_row_and_every_row_is_shown_again(
    client, cast, evaluation
):
    tenants = [TENANTS[0], {**TENANTS[1], "name": "Research Team"}, TENANTS[2]]

    response = post(client, cast.bob, evaluation, page_data(tenants=tenants))

    assert response.status_code == 400
    fleet = response.context["form"].fleet
    assert "not a valid name" in str(fleet.tenants.forms[1].errors["name"])
    assert not fleet.tenants.forms[0].errors and not fleet.tenants.forms[2].errors
    content = response.content.decode()
    for typed in ('value="clinical"', 'value="Research Team"', 'value="students"', 'value="16"'):
        assert typed in content
    # The message is said under the control, without the path the engine names it by.
    assert "tenants[1]" not in content


def test_a_bad_tenant_keeps_its_stored_list_and_saves_everything_else(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())
    tenants = [TENANTS[0], {**TENANTS[1], "name": "Research Team"}]

    post(client, cast.bob, evaluation, page_data(tenants=tenants, groups=GROUPS[:1]))

    profile = stored(evaluation)
    assert profile["tenants"] == TENANTS
    assert profile["node_groups"] == GROUPS[:1]
    assert profile["installed"] == INSTALLED


def test_a_demand_line_with_gpus_and_replicas_is_marked_on_that_line(client, cast, evaluation):
    line = {"workload": "training", "gpus": 16, "replicas": 2, "when": "window"}
    tenants = [TENANTS[0], {**TENANTS[1], "demand": [line]}, TENANTS[2]]

    response = post(client, cast.bob, evaluation, page_data(tenants=tenants), autosave=True)

    errors = response.json()["errors"]
    assert list(errors) == ["tenants-1-demand-0"]
    assert "either gpus, or replicas" in errors["tenants-1-demand-0"][0]


def test_a_number_the_form_refuses_is_marked_on_its_control(client, cast, evaluation):
    groups = [GROUPS[0], {**GROUPS[1], "nodes": "four"}]

    response = post(client, cast.bob, evaluation, page_data(groups=groups), autosave=True)

    assert list(response.json()["errors"]) == ["node_groups-1-nodes"]
    profile = stored(evaluation)
    assert profile["node_groups"] is None  # nothing stored before: nothing half-stored now
    assert profile["tenants"] == TENANTS


def test_a_mig_profile_no_group_has_is_marked_on_its_line(client, cast, evaluation):
    line = {"workload": "interactive", "replicas": 30, "mig_profile": "1g.12gb"}
    tenants = [*TENANTS[:2], {**TENANTS[2], "demand": [line]}]

    response = post(client, cast.bob, evaluation, page_data(tenants=tenants), autosave=True)

    assert list(response.json()["errors"]) == ["tenants-2-demand-0-mig_profile"]


def test_named_tenants_beside_a_single_tenant_tenancy_mark_the_tenancy(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, page_data(tenancy="single"), autosave=True)

    assert list(response.json()["errors"]) == ["tenancy"]
    assert stored(evaluation)["tenants"] == TENANTS


def test_the_engine_error_is_said_in_chinese(client, cast, evaluation):
    tenants = [TENANTS[0], {**TENANTS[1], "name": "Research Team"}]
    with translation.override("zh-hans"):
        client.force_login(cast.bob)
        url = reverse("evaluations:step", args=[evaluation.pk, 1])
        response = client.post(
            url,
            {**page_data(tenants=tenants), "revision": evaluation.revision},
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )

    message = str(response.context["form"].fleet.tenants.forms[1].errors["name"])
    assert "不是有效的名称" in message


# Rows added and removed without JavaScript


def test_add_a_node_group_shows_a_new_empty_row_and_keeps_what_was_typed(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**page_data(), "fleet": "add:node_groups"})

    assert response.status_code == 200
    groups = response.context["form"].fleet.node_groups
    assert len(groups.forms) == 3
    assert groups.forms[2]["name"].value() in (None, "")
    assert stored(evaluation)["node_groups"] == GROUPS  # the empty row is not a group


def test_the_first_node_group_takes_over_the_single_model_fields(client, cast, evaluation):
    data = {**ANSWERS, "gpu_model": "A100 80GB", "node_count": "4", "gpus_per_node": "8"}

    response = post(client, cast.bob, evaluation, {**data, "fleet": "add:node_groups"})

    groups = response.context["form"].fleet.node_groups
    assert groups.forms[0]["gpu_model"].value() == "A100 80GB"
    assert stored(evaluation)["node_groups"] == [
        {"name": "gpu-nodes", "gpu_model": "A100 80GB", "nodes": 4, "gpus_per_node": 8}
    ]
    assert stored(evaluation)["gpu_model"] is None
    assert 'name="gpu_model"' not in response.content.decode()


def test_the_first_tenant_added_names_the_counted_ones(client, cast, evaluation):
    data = {**ANSWERS, "workload_types": ["training"], "tenant_count": "2"}

    post(client, cast.bob, evaluation, {**data, "fleet": "add:tenants"})

    assert [tenant["name"] for tenant in stored(evaluation)["tenants"]] == [
        "tenant-1",
        "tenant-2",
    ]
    assert stored(evaluation)["tenant_count"] is None


def test_remove_a_tenant_keeps_the_others_with_their_demand(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())

    kinds = ["online_inference", "interactive"]

    response = post(
        client,
        cast.bob,
        evaluation,
        {**page_data(workload_types=kinds), "fleet": "remove:tenants-1"},
    )

    assert response.status_code == 200
    assert stored(evaluation)["tenants"] == [TENANTS[0], TENANTS[2]]
    students = response.context["form"].fleet.tenants.forms[1]
    assert students.prefix == "tenants-1"
    assert students.demand.forms[0]["mig_profile"].value() == "1g.10gb"


def test_add_and_remove_a_demand_line_of_one_tenant(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**page_data(), "fleet": "add:tenants-1-demand"})
    assert len(response.context["form"].fleet.tenants.forms[1].demand.forms) == 2

    post(client, cast.bob, evaluation, {**page_data(), "fleet": "remove:tenants-1-demand-0"})

    assert stored(evaluation)["tenants"][1]["demand"] == []
    assert stored(evaluation)["tenants"][0] == TENANTS[0]


def test_remove_an_installed_component(client, cast, evaluation):
    post(client, cast.bob, evaluation, page_data())

    post(client, cast.bob, evaluation, {**page_data(), "fleet": "remove:installed-0"})

    assert stored(evaluation)["installed"] is None


def test_removing_the_only_tenant_of_a_workload_type_says_so_above_the_tenants(
    client, cast, evaluation
):
    response = post(client, cast.bob, evaluation, {**page_data(), "fleet": "remove:tenants-1"})

    assert response.status_code == 400
    assert "no tenant runs training" in response.content.decode()
    assert "no tenant runs training" in str(response.context["form"].fleet.table_errors["tenants"])
    assert len(response.context["form"].fleet.tenants.forms) == 2


def test_a_row_button_that_names_no_row_saves_like_the_save_button(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {**page_data(), "fleet": "remove:nothing"})

    assert response.status_code == 302
    assert stored(evaluation)["node_groups"] == GROUPS
