"""Step 3's suggestions: which catalog rows steps 1 and 2 call for, with the reason in words,
never a row already chosen, a few per layer, in the same number of queries at any size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from catalog.templatetags.labels import vocabulary_names
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_candidate_add, evaluation_step_save
from evaluations.steps.suggestions import SUGGESTIONS_PER_LAYER, candidate_suggestions
from tests.evaluations.factories import make_cast, make_evaluation
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

HARD = {"memory": "hard", "compute": "hard", "fault": "hard"}


def one_row(slug: str, layer: str, *, tags=("gpu",), **fields):
    return project(slug, placement("main", layer, **fields), name=slug.title(), tags=list(tags))


@pytest.fixture
def cast(db):
    apply(
        bundle(
            one_row("mig-plugin", "data_plane", resource_units=["mig_slice"],
                    functions=["present"], isolation=HARD),
            one_row("slicer", "data_plane", resource_units=["time_slice"], functions=["present"]),
            one_row("exporter", "data_plane", resource_units=["none"], functions=["observe"],
                    signals=["signal:exp/GPU_UTIL", "signal:exp/GPU_MEM"]),
            one_row("labeller", "data_plane", resource_units=["none"], functions=["label"]),
            one_row("queue", "control_plane", resource_units=["whole_gpu", "mig_slice"],
                    functions=["quota", "fair_sharing"]),
            one_row("ganger", "control_plane", resource_units=["whole_gpu"], functions=["gang"]),
            one_row("placer", "control_plane", resource_units=["mig_slice"],
                    functions=["device_placement"]),
            one_row("preempter", "control_plane", resource_units=["mig_slice"],
                    functions=["preemption"]),
            one_row("old-queue", "control_plane", resource_units=["mig_slice"],
                    functions=["quota"], tags=["unmaintained"]),
            one_row("costs", "platform", resource_units=["none"], functions=["cost"]),
            one_row("server", "platform", resource_units=["whole_gpu"], functions=["serving"]),
        )
    )  # fmt: skip
    return make_cast()


def evaluation_with(cast, *, profile=None, units=()):
    evaluation = make_evaluation(cast)
    if profile:
        evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=profile)
    if units:
        evaluation_step_save(
            evaluation=evaluation, actor=cast.bob, step="units", data={"units": list(units)}
        )
    return Evaluation.objects.get(pk=evaluation.pk)


def suggested(evaluation) -> dict[str, list[tuple[str, str]]]:
    """{layer: [(ref, reason), ...]} in the order shown."""
    return {
        group.layer: [(s.ref, s.reason) for s in group.suggestions]
        for group in candidate_suggestions(evaluation=evaluation)
    }


def test_multi_tenancy_calls_for_quota_and_fair_sharing_on_the_chosen_units(cast):
    evaluation = evaluation_with(cast, profile={"tenancy": "multi"}, units=["mig_slice"])

    control = suggested(evaluation)["control_plane"]

    assert [ref for ref, _ in control] == ["queue/main"]
    assert control[0][1] == "Quota and fair sharing between tenants on MIG slice"


def test_training_calls_for_gang_scheduling(cast):
    evaluation = evaluation_with(
        cast, profile={"workload_types": ["training"]}, units=["whole_gpu"]
    )

    control = dict(suggested(evaluation)["control_plane"])

    assert control == {"ganger/main": "Gang scheduling for training and batch jobs"}


def test_inference_beside_training_calls_for_preemption(cast):
    evaluation = evaluation_with(
        cast, profile={"workload_types": ["training", "online_inference"]}, units=["mig_slice"]
    )

    control = dict(suggested(evaluation)["control_plane"])

    assert control == {"preempter/main": "Preemption for online inference beside training"}


def test_hard_isolation_puts_rows_offering_it_on_a_chosen_unit_first(cast):
    evaluation = evaluation_with(
        cast, profile={"isolation": "hard"}, units=["mig_slice", "time_slice"]
    )

    data = suggested(evaluation)["data_plane"]

    assert data == [
        ("mig-plugin/main", "Hard memory isolation on MIG slice, as step 1 demands"),
        ("slicer/main", "Presents Time slice, chosen in step 2"),
    ]


def test_a_p99_target_calls_for_exporters_of_signals(cast):
    evaluation = evaluation_with(
        cast, profile={"primary_objective": "p99_latency", "p99_target_ms": 200}
    )

    data = dict(suggested(evaluation)["data_plane"])

    assert data == {"exporter/main": "2 signals to watch the P99 target of 200 ms (e.g. GPU_MEM)"}


def test_a_row_serving_several_needs_says_each_and_ranks_first(cast):
    evaluation = evaluation_with(
        cast, profile={"tenancy": "multi", "p99_target_ms": 150}, units=["mig_slice"]
    )

    data = suggested(evaluation)["data_plane"]

    assert data[0] == (
        "exporter/main",
        "2 signals to watch the P99 target of 150 ms (e.g. GPU_MEM); meters each tenant's use",
    )


def test_rows_of_units_not_chosen_in_step_two_are_not_suggested(cast):
    evaluation = evaluation_with(
        cast, profile={"workload_types": ["training"], "tenancy": "multi"}, units=["mig_slice"]
    )

    control = [ref for ref, _ in suggested(evaluation)["control_plane"]]

    assert "ganger/main" not in control  # gang scheduling, but on whole GPUs only
    assert control == ["queue/main"]


def test_unmaintained_projects_and_rows_already_chosen_are_not_suggested(cast):
    evaluation = evaluation_with(cast, profile={"tenancy": "multi"}, units=["mig_slice"])
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="queue/main")

    assert "control_plane" not in suggested(evaluation)  # old-queue is unmaintained


def test_nothing_is_suggested_before_steps_one_and_two_are_answered(cast):
    assert candidate_suggestions(evaluation=make_evaluation(cast)) == []


def test_the_layers_come_bottom_up(cast):
    evaluation = evaluation_with(
        cast,
        profile={"tenancy": "multi", "primary_objective": "cost",
                 "workload_types": ["online_inference"]},
        units=["mig_slice", "whole_gpu"],
    )  # fmt: skip

    layers = [group.layer for group in candidate_suggestions(evaluation=evaluation)]

    assert layers == ["data_plane", "control_plane", "platform"]
    assert dict(suggested(evaluation)["platform"]) == {
        "costs/main": "GPU cost per team and workload, as cost comes first",
        "server/main": "Serves the models of online inference",
    }


def test_unit_names_in_reasons_follow_the_language(cast):
    evaluation = evaluation_with(cast, profile={"tenancy": "multi"}, units=["mig_slice"])

    with translation.override("zh-hans"):
        reason = candidate_suggestions(evaluation=evaluation)[0].suggestions[0].reason

    assert "MIG 切片" in reason


def test_each_layer_shows_a_few_in_the_same_queries_at_any_catalog_size(cast):
    evaluation = evaluation_with(
        cast, profile={"tenancy": "multi", "workload_types": ["training"]}, units=["whole_gpu"]
    )
    vocabulary_names("unit")  # the names come from the labels' cache, warm on any page
    with CaptureQueriesContext(connection) as few:
        candidate_suggestions(evaluation=evaluation)
    apply(
        bundle(
            *(
                one_row(f"queue-{n}", "control_plane", resource_units=["whole_gpu"],
                        functions=["quota", "gang"], signals=[f"signal:q/{n}"])
                for n in range(12)
            )
        )
    )  # fmt: skip

    with CaptureQueriesContext(connection) as many:
        groups = candidate_suggestions(evaluation=evaluation)

    control = next(group for group in groups if group.layer == "control_plane")
    assert len(control.suggestions) == SUGGESTIONS_PER_LAYER
    # Both quota and gang outrank a row offering one of them.
    assert all(s.ref.startswith("queue-") for s in control.suggestions)
    # Cold caches both times (the write made a new revision): one query more than before the
    # catalog's side was cached, for the revision.
    assert len(many) == len(few) <= 9


def test_the_catalog_side_of_the_suggestions_is_read_once_per_revision(cast):
    evaluation = evaluation_with(cast, profile={"tenancy": "multi"}, units=["whole_gpu"])
    vocabulary_names("unit")  # the names come from the labels' cache, warm on any page
    with CaptureQueriesContext(connection) as cold:
        first = candidate_suggestions(evaluation=evaluation)
    with CaptureQueriesContext(connection) as warm:
        again = candidate_suggestions(evaluation=evaluation)
    apply(bundle(one_row("queue-new", "control_plane", resource_units=["whole_gpu"],
                         functions=["quota", "gang"])))  # fmt: skip
    after_write = candidate_suggestions(evaluation=evaluation)

    assert again == first
    # rows, their units, their signals, and the catalog revision (pages read it from the cache)
    assert len(warm) == len(cold) - 4
    control = next(group for group in after_write if group.layer == "control_plane")
    assert "queue-new/main" in [s.ref for s in control.suggestions]


def test_before_step_two_demanded_isolation_is_looked_for_on_any_unit(cast):
    evaluation = evaluation_with(cast, profile={"isolation": "hard"})

    data = suggested(evaluation)["data_plane"]

    assert data == [("mig-plugin/main", "Hard memory isolation on MIG slice, as step 1 demands")]


def test_layer_and_function_names_follow_the_language(cast):
    evaluation = evaluation_with(cast, profile={"tenancy": "multi"}, units=["mig_slice"])
    english = candidate_suggestions(evaluation=evaluation)

    with translation.override("zh-hans"):
        chinese = candidate_suggestions(evaluation=evaluation)

    assert [group.label for group in english][:1] == ["Data plane"]
    assert [group.label for group in chinese][:1] == ["数据平面"]
    assert english[0].suggestions[0].functions != chinese[0].suggestions[0].functions
