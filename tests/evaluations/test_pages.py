"""The evaluation pages: steps, comparison warnings, recommendations, decision, audit, budgets."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evaluations import selectors
from evaluations.audit.models import AuditEntry
from evaluations.decisions.services import evaluation_decide
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.models import Evaluation, State
from evaluations.review.services import evaluation_review
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)
from tests.factories import apply, bundle, make_user, placement, project

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def page(client, user, name: str, evaluation, *args):
    client.force_login(user)
    return client.get(reverse(name, args=[evaluation.pk, *args]))


def with_candidates(cast, *candidates: dict) -> Evaluation:
    evaluation = make_evaluation(cast)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={"candidates": list(candidates)},
    )
    return evaluation


# Steps


def test_each_step_shows_the_methods_guidance_in_english(client, cast):
    evaluation = make_evaluation(cast)

    content = page(client, cast.bob, "evaluations:step", evaluation, 1).content.decode()

    assert "Fix the target workload and SLO first" in content
    assert "Is a failure a degradation or an incident?" in content


def test_the_guidance_follows_the_language(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)
    client.cookies.load({"django_language": "zh-hans"})

    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert "先固定目标工作负载与 SLO" in content


def test_step_one_saves_and_moves_to_step_two(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)
    data = {key: value for key, value in MIXED_PROFILE.items() if key != "priorities"}
    data |= {"priority_1": "isolation", "priority_2": "observability", "go": "next"}

    response = client.post(reverse("evaluations:step", args=[evaluation.pk, 1]), data)

    assert response["Location"] == reverse("evaluations:step", args=[evaluation.pk, 2])
    evaluation.refresh_from_db()
    assert evaluation.profile_done
    assert evaluation.profile["priorities"] == ["isolation", "observability"]


def test_step_one_explains_a_priority_ranked_twice(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)

    response = client.post(
        reverse("evaluations:step", args=[evaluation.pk, 1]),
        {"priority_1": "cost", "priority_2": "cost"},
    )

    assert response.status_code == 400
    assert "Each priority can be ranked once." in response.content.decode()


def test_step_two_shows_what_each_unit_implies_from_the_catalog(client, cast):
    evaluation = make_evaluation(cast)

    response = page(client, cast.bob, "evaluations:step", evaluation, 2)

    quota = next(
        item for item in response.context["implications"] if item.unit.key == "memory_compute_quota"
    )
    assert quota.isolation_ceiling["memory"] == "hard"  # HAMi's row
    assert quota.rows == 3
    assert "MiB of memory" in response.content.decode()


def test_step_three_searches_the_catalog_and_adds_a_candidate(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)
    url = reverse("evaluations:step", args=[evaluation.pk, 3])

    assert "volcano/scheduler" in client.get(url, {"q": "volcano"}).content.decode()
    client.post(url, {"add": "volcano/scheduler", "q": "volcano"})

    candidate = evaluation.candidates.get()
    assert candidate.row.ref == "volcano/scheduler"
    assert {p.key for p in candidate.enforcement_points.all()} == {"scheduler", "admission"}


def test_step_three_confirms_and_removes_candidates(client, cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "volcano/scheduler"})
    hami, volcano = evaluation.candidates.order_by("position")
    client.force_login(cast.bob)

    client.post(
        reverse("evaluations:step", args=[evaluation.pk, 3]),
        {
            f"points_{hami.pk}": ["runtime_interception"],
            f"confirmed_{hami.pk}": "on",
            f"points_{volcano.pk}": ["scheduler"],
            "remove": str(volcano.pk),
        },
    )

    assert [c.row.ref for c in evaluation.candidates.all()] == ["hami/device-plugin"]
    evaluation.refresh_from_db()
    assert evaluation.candidates_done


def test_step_four_is_prefilled_from_promise_and_non_promise(client, cast):
    evaluation = with_candidates(cast, {"row": "volcano/scheduler"})

    content = page(client, cast.bob, "evaluations:step", evaluation, 4).content.decode()

    assert "Never promises zero interference inside the node." in content


# Comparison


def test_candidates_of_different_layers_as_alternatives_raise_a_misjudgement(client, cast):
    evaluation = with_candidates(
        cast,
        {"row": "hami/device-plugin", "alternative_group": "sharing"},
        {"row": "volcano/scheduler", "alternative_group": "sharing"},
    )

    content = page(client, cast.bob, "evaluations:comparison", evaluation).content.decode()

    assert "are not competitors" in content
    assert "HAMi device-plugin (data plane) and Volcano scheduler (control plane)" in content
    assert "compose through interface contracts" in content


def test_misjudgement_warnings_are_written_in_chinese_for_a_chinese_reader(client, cast):
    evaluation = with_candidates(
        cast,
        {"row": "hami/device-plugin", "alternative_group": "sharing"},
        {"row": "volcano/scheduler", "alternative_group": "sharing"},
    )
    client.force_login(cast.bob)
    client.cookies.load({"django_language": "zh-hans"})

    content = client.get(reverse("evaluations:comparison", args=[evaluation.pk])).content.decode()

    assert "HAMi device-plugin（数据平面） 与 Volcano scheduler（控制面） 不是竞品" in content
    assert "它们通过接口契约组合" in content
    assert "are not competitors" not in content


def test_a_platform_put_up_against_a_mechanism_is_flagged(client, cast):
    evaluation = with_candidates(
        cast,
        {"row": "hami/device-plugin", "alternative_group": "a"},
        {"row": "gpustack/platform", "alternative_group": "a"},
    )

    content = page(client, cast.bob, "evaluations:comparison", evaluation).content.decode()

    assert "is not a substitute for a mechanism" in content


def test_same_layer_same_unit_candidates_share_a_comparison_table(client, cast):
    evaluation = with_candidates(
        cast,
        {"row": "hami/device-plugin", "alternative_group": "a"},
        {"row": "time-slicer/plugin", "alternative_group": "a"},
    )

    response = page(client, cast.bob, "evaluations:comparison", evaluation)

    [shared] = response.context["comparison"].groups
    assert shared["group"].units == ("memory_compute_quota",)
    assert shared["group"].functions == ("present",)
    assert [c.row.ref for c in shared["candidates"]] == ["hami/device-plugin", "time-slicer/plugin"]
    assert response.context["comparison"].misjudgements == []
    # Both advertise the node's NVIDIA GPUs: the conflict comes first, in red.
    content = response.content.decode()
    assert 'class="alert alert-error conflict"' in content
    assert content.index("alert-error conflict") < content.index("compare-group")


def test_cross_layer_pairs_are_shown_as_contract_checks_only(client, cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "volcano/scheduler"})

    response = page(client, cast.bob, "evaluations:comparison", evaluation)

    [pair] = response.context["facts"].pairs
    assert pair.verdict == "composes"
    assert pair.projects == ("hami", "volcano")
    assert "HAMi and Volcano compose through 1 interface(s)" in response.content.decode()
    assert "resource:nvidia.com/gpumem" in response.content.decode()
    assert response.context["comparison"].misjudgements == []


def test_the_comparison_links_to_the_matrix_filtered_to_its_candidates(client, cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "volcano/scheduler"})

    content = page(client, cast.bob, "evaluations:comparison", evaluation).content.decode()

    assert 'href="/matrix/?project=hami&amp;project=volcano"' in content


# Recommendations and decision


def test_recommendations_are_ranked_explained_and_checked_for_a_profile(client, cast):
    call_command("load_catalog", verbosity=0)
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    response = page(client, cast.bob, "evaluations:recommendations", evaluation)

    recommendations = response.context["recommendations"]
    assert recommendations
    assert [r.rank for r in recommendations] == list(range(1, len(recommendations) + 1))
    content = response.content.decode()
    assert "Shape C" in content
    assert "What fits" in content
    assert "Stack check: no gaps, no conflicts" in content
    assert f"/map/?stack={','.join(recommendations[0].rows)}" in content


def test_recommendations_explain_themselves_in_chinese_for_a_chinese_reader(client, cast):
    call_command("load_catalog", verbosity=0)
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    client.force_login(cast.bob)
    client.cookies.load({"django_language": "zh-hans"})

    content = client.get(
        reverse("evaluations:recommendations", args=[evaluation.pk])
    ).content.decode()

    assert "训练、推理与交互式工作混合，按节点池拆分" in content  # the shape, in the explanation
    assert "吞吐" in content  # an acceptance check (throughput), on its pool's card
    assert "Shape C (mixed training" not in content


def test_a_recommendation_adopted_in_chinese_keeps_a_chinese_rationale(client, cast):
    call_command("load_catalog", verbosity=0)
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    client.force_login(cast.bob)
    client.cookies.load({"django_language": "zh-hans"})

    client.post(reverse("evaluations:decision", args=[evaluation.pk]), {"adopt": "1"})

    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.rationale.startswith("形态 ")
    assert "混部负载下的 P99 延迟" in decision.acceptance_checks


def test_a_recommendation_can_be_adopted_as_the_decision(client, cast):
    call_command("load_catalog", verbosity=0)
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    client.force_login(cast.bob)

    client.post(reverse("evaluations:decision", args=[evaluation.pk]), {"adopt": "1"})

    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    best = selectors.recommendations_for(evaluation=evaluation)[0]
    assert decision.rows == list(best.rows)
    assert decision.pools == {name: list(ids) for name, ids in best.pools.items()}
    assert decision.pool_tenant_sharing == {
        name: pool["tenant_sharing"]
        for name, pool in best.pool_details.items()
        if name in decision.pools
    }
    assert "P99 latency" in decision.acceptance_checks


def test_the_decision_prefills_risks_from_failure_modes_and_shows_the_stack_check(client, cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "volcano/scheduler"})
    client.force_login(cast.bob)
    url = reverse("evaluations:decision", args=[evaluation.pk])

    # Before a stack is chosen nothing is pre-filled: the candidates are not the decision.
    assert not client.get(url).context["form"].initial.get("risks")

    response = client.post(
        url,
        {
            "pool-TOTAL_FORMS": "1",
            "pool-INITIAL_FORMS": "0",
            "pool-0-name": "shared",
            "pool-0-rows": ["hami/device-plugin"],
            "cluster_wide": ["volcano/scheduler"],
            "risks": "x",
        },
        follow=True,
    )
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.pools == {"shared": ["hami/device-plugin"]}
    assert response.context["report"].ok
    assert "/map/?stack=hami/device-plugin,volcano/scheduler" in response.content.decode()


def test_the_risks_prefill_names_only_the_chosen_rows(client, cast):
    """Issue 26: the pre-filled risks come from the decided rows, never from every candidate."""
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "volcano/scheduler"})
    evaluation_decide(evaluation=evaluation, actor=cast.bob, rows=["volcano/scheduler"])
    client.force_login(cast.bob)

    risks = (
        client.get(reverse("evaluations:decision", args=[evaluation.pk]))
        .context["form"]
        .initial["risks"]
    )

    assert risks
    assert "statically linked CUDA escapes the limits" not in risks  # a HAMi failure mode
    assert all(line.startswith("volcano/scheduler") for line in risks.splitlines())


def test_a_pool_named_per_tenant_keeps_tenants_apart_in_the_stack_check(client, cast):
    """Six tenants demanding hard isolation may share a HAMi pool only when the decision says it
    is one pool per tenant (issue 26)."""
    call_command("load_catalog", verbosity=0)
    evaluation = make_evaluation(
        cast,
        profile={**MIXED_PROFILE, "tenancy": "multi", "tenant_count": 6, "isolation": "hard"},
    )
    rows = ["hami/device-plugin", "hami/scheduler-extender", "kueue/controller"]
    evaluation_decide(
        evaluation=evaluation, actor=cast.bob, rows=rows, pools={"notebooks": rows[:1]}
    )
    evaluation.refresh_from_db()
    blocked = selectors.decision_report(evaluation)
    assert not blocked.ok
    assert any(f.blocking and f.aspect == "tenancy" for f in blocked.fit)

    client.force_login(cast.bob)
    client.post(
        reverse("evaluations:decision", args=[evaluation.pk]),
        {
            "pool-TOTAL_FORMS": "2",
            "pool-INITIAL_FORMS": "1",
            "pool-0-name": "notebooks",
            "pool-0-rows": rows[:1],
            "pool-0-tenant_sharing": "within_tenant",
            "cluster_wide": rows[1:],
        },
    )
    evaluation.refresh_from_db()
    assert evaluation.decision.pool_tenant_sharing == {"notebooks": "within_tenant"}
    report = selectors.decision_report(evaluation)
    assert not any(f.blocking for f in report.fit), [f.message for f in report.fit]


def test_tenant_sharing_must_name_pools_of_the_stack(cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"})

    with pytest.raises(InvalidInput, match="Tenant sharing names pools of the stack"):
        evaluation_decide(
            evaluation=evaluation,
            actor=cast.bob,
            rows=["hami/device-plugin"],
            pools={"notebooks": ["hami/device-plugin"]},
            pool_tenant_sharing={"elsewhere": "within_tenant"},
        )


def test_a_decided_stack_with_a_conflict_shows_it(client, cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"}, {"row": "time-slicer/plugin"})
    evaluation_decide(
        evaluation=evaluation, actor=cast.bob, rows=["hami/device-plugin", "time-slicer/plugin"]
    )

    response = page(client, cast.bob, "evaluations:decision", evaluation)

    assert not response.context["report"].ok
    assert "conflict in pool default" in response.content.decode()


# Review and audit


def test_the_overview_shows_reviews_with_step_comments_and_the_audit_log(client, cast):
    evaluation = submitted(cast)
    evaluation_review(
        evaluation=evaluation,
        actor=cast.carol,
        verdict="request_changes",
        comment="Almost.",
        step_comments={"boundaries": "Say what HAMi does not isolate."},
    )

    content = page(client, cast.dave, "evaluations:detail", evaluation).content.decode()

    assert "Say what HAMi does not isolate." in content
    assert "in review → changes requested" in content  # states named, not keys
    assert "carol-reviewer" in content


def test_every_edit_and_state_change_is_audited_with_who_and_what(cast):
    evaluation = submitted(cast)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    entries = list(AuditEntry.objects.filter(evaluation=evaluation).order_by("id"))

    assert [(e.action, e.step) for e in entries] == [
        ("created", ""),
        ("step_saved", "profile"),
        ("step_saved", "units"),
        ("step_saved", "candidates"),
        ("decided", "decision"),
        ("submitted", ""),
        ("approved", ""),
    ]
    assert entries[0].actor == cast.bob
    assert entries[-1].actor == cast.carol
    assert entries[-1].state_to == State.APPROVED
    assert entries[2].changes == {"added": ["memory_compute_quota"]}


def test_an_audit_entry_records_the_fields_that_changed(cast):
    evaluation = make_evaluation(cast)

    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"}
    )

    entry = evaluation.audit.first()
    assert entry.changes == {"tenancy": {"old": None, "new": "multi"}}
    assert entry.revision == 2


def test_refused_writes_leave_no_audit_entry(cast):
    evaluation = make_evaluation(cast)
    count = AuditEntry.objects.count()

    with pytest.raises(NotAllowed):
        evaluation_step_save(
            evaluation=evaluation, actor=cast.dave, step="units", data={"units": ["whole_gpu"]}
        )

    assert AuditEntry.objects.count() == count


# Query budgets


def test_the_evaluation_list_has_a_fixed_query_count(client, cast):
    client.force_login(cast.bob)
    make_evaluation(cast)
    client.get(reverse("evaluations:list"))  # each measured request follows a warm one
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("evaluations:list"))
    for i in range(8):
        fill_steps(make_evaluation(cast, title=f"Evaluation {i}"), cast.bob)
    client.get(reverse("evaluations:list"))

    with CaptureQueriesContext(connection) as many:
        response = client.get(reverse("evaluations:list"))

    assert len(response.context["evaluations"]) == 9
    assert len(many) == len(few)
    assert len(many) <= 8


def test_the_comparison_page_has_a_fixed_query_count(client, cast):
    client.force_login(cast.bob)
    small = with_candidates(cast, {"row": "hami/device-plugin"})
    large = with_candidates(
        cast,
        {"row": "hami/device-plugin", "alternative_group": "a"},
        {"row": "time-slicer/plugin", "alternative_group": "a"},
        {"row": "volcano/scheduler", "alternative_group": "a"},
        {"row": "gpustack/platform"},
    )

    # The vocabulary's names are cached for a minute and the candidates' rows per catalog
    # revision: warm as after any first page.
    client.get(reverse("evaluations:comparison", args=[large.pk]))
    client.get(reverse("evaluations:comparison", args=[small.pk]))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("evaluations:comparison", args=[small.pk]))
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("evaluations:comparison", args=[large.pk]))

    assert len(many) == len(few)
    assert len(many) <= 11


def test_the_comparison_reads_a_catalog_write_at_once(cast):
    evaluation = with_candidates(cast, {"row": "hami/device-plugin"})
    before = selectors.comparison_for(evaluation).facts
    first = selectors.candidate_engine_rows(selectors.candidates_of(evaluation))
    assert first == selectors.candidate_engine_rows(selectors.candidates_of(evaluation))
    assert "observe" not in first[0].functions

    apply(bundle(project("hami", placement("device-plugin", "data_plane", functions=["observe"]))))
    rows = selectors.candidate_engine_rows(selectors.candidates_of(evaluation))

    assert [row.id for row in rows] == ["hami/device-plugin"]
    assert rows[0].functions == {"observe"}
    assert selectors.comparison_for(evaluation).facts is not before


def test_the_admin_shows_evaluations_read_only_with_their_audit(client, cast):
    evaluation = submitted(cast)
    admin = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(admin)

    listing = client.get(reverse("admin:evaluations_evaluation_changelist"))
    detail = client.get(reverse("admin:evaluations_evaluation_change", args=[evaluation.pk]))

    assert listing.status_code == 200
    assert detail.status_code == 200
    assert "submitted" in detail.content.decode()
    assert client.get(reverse("admin:teams_team_change", args=[cast.team.pk])).status_code == 200


def test_a_step_saved_over_a_newer_revision_keeps_the_input_and_says_who_saved(client, cast):
    evaluation = make_evaluation(cast)
    loaded = evaluation.revision
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"tenancy": "multi"}
    )
    client.force_login(cast.bob)
    url = reverse("evaluations:step", args=[evaluation.pk, 1])

    page_post = client.post(url, {"revision": loaded, "p99_target_ms": "123", "go": "stay"})
    autosave = client.post(url, {"revision": loaded, "p99_target_ms": "123"}, HTTP_X_AUTOSAVE="1")

    assert page_post.status_code == 409
    content = page_post.content.decode()
    assert "alice-admin saved this evaluation" in content
    assert "changing tenancy → multi" in content  # what the other editor changed
    assert 'value="123"' in content  # the user's input is still in the form
    assert f'name="revision" value="{loaded + 1}"' in content  # saving again goes on top
    assert autosave.status_code == 409
    assert autosave.json()["revision"] == loaded + 1
    assert Evaluation.objects.get(pk=evaluation.pk).profile.get("p99_target_ms") is None
