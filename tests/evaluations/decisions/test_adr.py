"""The decision record (MADR layout): Markdown a team commits next to its cluster config, and the
same record as JSON."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from evaluations.decisions.adr import md_inline
from evaluations.decisions.services import evaluation_decide
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db

HEADINGS = [
    "## Context and problem statement",
    "## Decision drivers",
    "## Considered options",
    "## Decision outcome",
    "## Consequences",
    "## Links",
]


@pytest.fixture
def cast():
    small_catalog()
    return make_cast()


@pytest.fixture
def decided(cast):
    """An approved evaluation: HAMi and Volcano decided, with risks and acceptance checks."""
    evaluation = fill_steps(make_evaluation(cast, title="GPU sharing for 2027"), cast.bob)
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares the GPUs, Volcano governs the queues.",
        risks="statically linked CUDA escapes the limits\na queue without quota starves others",
        acceptance_checks="p99 under 200 ms at 8 tenants\nno OOM across tenants for 24 h",
    )
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    return evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _markdown(user, evaluation, **params) -> str:
    response = _api(user).get(f"/api/v1/evaluations/{evaluation.pk}/adr.md", params)
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_the_markdown_is_a_file_with_a_name(cast, decided):
    response = _api(cast.dave).get(f"/api/v1/evaluations/{decided.pk}/adr.md")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="adr-{decided.pk:04d}-gpu-sharing-for-2027.md"'
    )


def test_a_client_asking_for_markdown_gets_it(cast, decided):
    response = _api(cast.dave).get(
        f"/api/v1/evaluations/{decided.pk}/adr.md", HTTP_ACCEPT="text/markdown"
    )
    assert response.status_code == 200
    assert response.content.decode().startswith("# GPU sharing for 2027\n")


def test_the_headings_follow_the_madr_order(cast, decided):
    text = _markdown(cast.dave, decided)
    positions = [text.index(f"\n{heading}\n") for heading in HEADINGS]
    assert positions == sorted(positions)
    assert text.startswith("# GPU sharing for 2027\n")


def test_status_names_state_date_deciders_and_reviewers(cast, decided):
    text = _markdown(cast.dave, decided)
    assert f"* Status: approved (revision {decided.revision})" in text
    assert f"* Date: {decided.updated_at.date().isoformat()}" in text
    assert "* Deciders: bob-editor" in text
    assert "* Reviewers: carol-reviewer (approve, revision" in text


def test_drivers_come_from_the_profile_in_words_with_priorities_ranked(cast, decided):
    text = _markdown(cast.dave, decided)
    drivers = text.split("## Decision drivers")[1].split("## Considered options")[0]
    assert "* Primary objective: P99 latency first" in drivers
    assert "* P99 target: 200 ms" in drivers
    assert "* Jitter tolerance: low" in drivers
    assert "* Tenancy: multi-tenant" in drivers
    assert "  1. isolation strength" in drivers
    assert "p99_latency" not in drivers and "multi\n" not in drivers


def test_options_are_grouped_by_layer_with_labels_not_keys(cast, decided):
    text = _markdown(cast.dave, decided)
    options = text.split("## Considered options")[1].split("## Decision outcome")[0]
    assert "### Data plane" in options and "### Control plane" in options
    assert options.index("### Control plane") < options.index("### Data plane")
    assert "| HAMi | device-plugin component |" in options
    assert "memory and compute quota" in options.lower() or "quota" in options
    for key in ("data_plane", "control_plane", "memory_compute_quota", "runtime_interception"):
        assert key not in options
    assert "### Verdicts between them" in options
    assert "HAMi, Volcano" in options


def test_outcome_and_consequences_list_the_decision(cast, decided):
    text = _markdown(cast.dave, decided)
    outcome = text.split("## Decision outcome")[1].split("## Consequences")[0]
    assert "* HAMi · device-plugin component" in outcome
    assert "HAMi shares the GPUs, Volcano governs the queues." in outcome
    consequences = text.split("## Consequences")[1].split("## Links")[0]
    assert "* statically linked CUDA escapes the limits" in consequences
    assert "1. p99 under 200 ms at 8 tenants" in consequences
    assert "2. no OOM across tenants for 24 h" in consequences
    assert "### Stack check" in consequences


def test_links_are_absolute_and_reach_rows_and_evidence(cast, decided):
    text = _markdown(cast.dave, decided)
    links = text.split("## Links")[1]
    assert f"(http://testserver/evaluations/{decided.pk}/)" in links
    assert f"(http://testserver/evaluations/{decided.pk}/decision/)" in links
    assert "(http://testserver/catalog/projects/hami/#row-device-plugin)" in links
    assert "(https://example.org/docs)" in links


def test_hostile_text_cannot_break_the_layout(cast):
    evaluation = fill_steps(
        make_evaluation(cast, title="# Owned\n## Injected <img src=x onerror=alert(1)>"), cast.bob
    )
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True,
                 "alternative_group": "a | b | c"},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ]
        },
    )  # fmt: skip
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="## Fake heading\n<script>alert(1)</script>\n[click](javascript:alert(1))",
        risks="- nested | pipe\n# not a heading",
        acceptance_checks="1. numbered\n> quoted",
    )
    text = _markdown(cast.bob, evaluation)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[0] == "# \\# Owned ## Injected \\<img src=x onerror=alert(1)\\>"
    assert all(
        line.split(" ", 1)[0] in ("#", "##", "###") and "Fake" not in line
        and "not a heading" not in line
        for line in headings
    )  # fmt: skip
    assert re.search(r"(?<!\\)<", text) is None  # every < escaped: no HTML at all
    assert "\\<script\\>alert(1)\\</script\\>" in text
    assert "\\[click\\](javascript:alert(1))" in text  # brackets escaped: no link
    table_lines = [line for line in text.splitlines() if line.startswith("| HAMi")]
    assert len(re.findall(r"(?<!\\)\|", table_lines[0])) == 8  # 7 cells, no extra ones
    assert "a \\| b \\| c" in table_lines[0]
    assert "* \\- nested \\| pipe" in text
    assert "* \\# not a heading" in text
    assert "1. 1\\. numbered" in text


def test_md_inline_escapes_markup_and_joins_lines():
    assert md_inline("a *b* _c_ `d` [e](f)\nnext") == "a \\*b\\* \\_c\\_ \\`d\\` \\[e\\](f) next"
    assert md_inline("<b>") == "\\<b\\>"
    assert md_inline("+ item") == "\\+ item"


def test_another_teams_record_is_not_found(cast, decided):
    for url in (
        f"/api/v1/evaluations/{decided.pk}/adr.md",
        f"/api/v1/evaluations/{decided.pk}/adr/",
    ):
        assert _api(cast.charlie).get(url).status_code == 404


def test_signed_out_gets_no_record(decided):
    assert APIClient().get(f"/api/v1/evaluations/{decided.pk}/adr/").status_code in (401, 403)


def test_the_json_record_has_the_madr_parts(cast, decided):
    response = _api(cast.dave).get(f"/api/v1/evaluations/{decided.pk}/adr/")
    assert response.status_code == 200
    data = response.json()
    assert list(data) == [
        "format", "id", "title", "status", "context", "drivers", "options", "outcome",
        "consequences", "links",
    ]  # fmt: skip
    assert data["format"] == "ecomap.adr/v1"
    assert data["status"]["state"] == "approved"
    assert data["status"]["deciders"] == ["bob-editor"]
    assert data["status"]["reviewers"][0]["reviewer"] == "carol-reviewer"
    assert [layer["layer"] for layer in data["options"]["by_layer"]] == [
        "Control plane",
        "Data plane",
    ]
    assert [row["ref"] for row in data["outcome"]["chosen"]] == [
        "hami/device-plugin",
        "volcano/scheduler",
    ]
    assert data["consequences"]["risks"][0] == "statically linked CUDA escapes the limits"
    assert data["consequences"]["stack_check"]["ok"] in (True, False)
    assert data["links"]["rows"][0]["catalog"].startswith("http://testserver/catalog/projects/")


def test_the_record_follows_the_requested_language(cast, decided):
    english = _markdown(cast.dave, decided, lang="en")
    chinese = _markdown(cast.dave, decided, lang="zh-hans")
    # Vocabulary labels are stored in both languages; the headings follow once translated.
    assert "### Control plane" in english
    assert "### Control plane" not in chinese
    by_header = _api(cast.dave).get(
        f"/api/v1/evaluations/{decided.pk}/adr/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert by_header.json()["options"]["by_layer"][0]["layer"] != "Control plane"


def test_the_decision_page_offers_the_download(client, cast, decided):
    client.force_login(cast.dave)
    page = client.get(f"/evaluations/{decided.pk}/decision/").content.decode()
    assert f'href="/api/v1/evaluations/{decided.pk}/adr.md"' in page
