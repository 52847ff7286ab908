"""The map's focus views, table and CSV on the built-in catalog: what each view contains is
checked against the catalog's documented relations (tests/catalog/documented_relations.yaml)."""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from catalog.models import PlacementRow, Project

pytestmark = pytest.mark.django_db

RELATIONS = yaml.safe_load(
    (Path(__file__).parents[1] / "documented_relations.yaml").read_text(encoding="utf-8")
)


BUNDLE = re.compile(r"(?P<count>\d+) contracts between <b>(?P<a>.+?)</b> and <b>(?P<b>.+?)</b>")


@pytest.fixture
def builtin(db):
    call_command("load_catalog", verbosity=0)


def data(client, **query) -> dict:
    response = client.get(reverse("map:data"), query)
    assert response.status_code == 200
    return response.json()


def documented(project: str, verdict: str) -> set[str]:
    """Rows the docs relate to one of `project`'s rows with `verdict`."""
    out = set()
    for relation in RELATIONS:
        a, b = relation["a"], relation["b"]
        if relation["verdict"] != verdict:
            continue
        if a.startswith(f"{project}/"):
            out.add(b)
        if b.startswith(f"{project}/"):
            out.add(a)
    return out


def test_hamis_neighbourhood_holds_its_rows_and_every_row_its_docs_say_composes_with_it(
    bob_client, builtin
):
    shown = set(data(bob_client, near="hami")["nodes"]["id"])

    own = {row.ref for row in PlacementRow.objects.filter(project__slug="hami")}
    # HAMi contains HAMi-core (issue 43): what a project ships is in its neighbourhood too.
    partners = documented("hami", "composes") | documented("hami", "contains")
    assert partners >= {
        "kueue/controller",
        "hami-core/libvgpu",
        "nvidia-gpu-operator/clusterpolicy",
    }
    assert own | partners <= shown
    # The docs call KAI's scheduler independent of HAMi's device plugin: not one contract away.
    assert "kai-scheduler/scheduler" not in shown
    assert len(shown) < PlacementRow.objects.count()


def test_a_layer_view_holds_exactly_that_layers_rows(bob_client, builtin):
    shown = data(bob_client, layer="control_plane")["nodes"]["id"]

    expected = {row.ref for row in PlacementRow.objects.filter(layer__key="control_plane")}
    assert sorted(shown) == sorted(expected)


def test_an_evaluations_candidates_view_holds_exactly_the_named_rows(bob_client, builtin):
    candidates = ["hami/device-plugin", "kueue/controller", "volcano/scheduler"]

    shown = data(bob_client, rows=",".join(candidates))["nodes"]["id"]

    assert sorted(shown) == sorted(candidates)


def test_a_decided_stack_shows_its_pools_on_the_nodes_and_in_the_table(bob_client, builtin):
    query = {
        "rows": "kueue/controller",
        "pool": ["hard:nvidia-mig/mig-manager,nvidia-device-plugin/mig-mixed",
                 "shared:hami/device-plugin"],
    }  # fmt: skip
    payload = data(bob_client, **query)

    pools = dict(zip(payload["nodes"]["id"], payload["nodes"]["pool"], strict=True))
    assert pools == {
        "kueue/controller": "",
        "nvidia-mig/mig-manager": "hard",
        "nvidia-device-plugin/mig-mixed": "hard",
        "hami/device-plugin": "shared",
    }
    table = bob_client.get(reverse("map:table"), query).content.decode()
    assert "pool hard" in table and "pool shared" in table


def test_the_whole_catalog_is_aggregated_and_draws_conflicts_only_when_asked(bob_client, builtin):
    plain = data(bob_client)
    asked = data(bob_client, conflicts="1")

    def uids(payload):
        return {trace.get("uid", "") for trace in payload["figure"]["data"]}

    assert plain["aggregated"] is True
    assert not any(uid.startswith("edges-conflicts") for uid in uids(plain))
    assert any(uid.startswith("edges-conflicts") for uid in uids(asked))
    # Every row is still drawn; only the edges are bundled.
    assert plain["shown"] == PlacementRow.objects.count()


def test_the_aggregated_view_bundles_the_contracts_between_two_projects(bob_client, builtin):
    payload = data(bob_client)
    names = dict(Project.objects.values_list("slug", "name"))
    bundles = {}
    for trace in payload["figure"]["data"]:
        for text in trace.get("hovertext", []) if trace.get("uid", "").startswith("edge-") else ():
            found = BUNDLE.match(text or "")
            if found:
                pair = frozenset((html.unescape(found["a"]), html.unescape(found["b"])))
                bundles[pair] = int(found["count"])

    # Project pairs the docs relate through two or more composes relations are drawn as one
    # bundle counting at least those.
    documented_pairs = Counter(
        frozenset((names[r["a"].split("/")[0]], names[r["b"].split("/")[0]]))
        for r in RELATIONS
        if r["verdict"] == "composes" and r["a"].split("/")[0] != r["b"].split("/")[0]
    )
    several = {pair: n for pair, n in documented_pairs.items() if n >= 2}
    assert several
    for pair, n in several.items():
        assert bundles.get(pair, 0) >= n, sorted(pair)


def test_the_csv_lists_each_row_with_its_contracts(bob_client, builtin):
    response = bob_client.get(reverse("map:csv"), {"rows": "hami/device-plugin,kueue/controller"})

    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode()  # streamed, never built whole
    lines = list(csv.DictReader(io.StringIO(body)))
    # Documented: HAMi's device plugin composes with Kueue via resource:nvidia.com/gpumem.
    provided = [
        line
        for line in lines
        if line["row"] == "hami/device-plugin" and line["relation"] == "provides_to"
    ]
    assert [line["partner_row"] for line in provided] == ["kueue/controller"]
    assert "resource:nvidia.com/gpumem" in provided[0]["interfaces"].split()
    used = [line for line in lines if line["row"] == "kueue/controller"]
    assert [(line["relation"], line["partner_row"]) for line in used] == [
        ("uses", "hami/device-plugin")
    ]


def test_the_page_lists_the_same_rows_as_the_figure(bob_client, builtin):
    response = bob_client.get(reverse("map:page"), {"near": "hami"})

    content = response.content.decode()
    shown = data(bob_client, near="hami")["nodes"]["id"]
    assert content.count('data-map-row="') == len(shown)
    assert 'class="skip-link" href="#map-table-section"' in content
    assert 'role="figure"' in content


def test_the_card_lists_the_clicked_rows_contracts_first(bob_client, builtin):
    response = bob_client.get(
        reverse("map:card", args=["hami"]), {"row": "hami/scheduler-extender"}
    )

    content = response.content.decode()
    first = content.index("hami/scheduler-extender")
    assert first < content.index("hami/device-plugin")
    # Documented: HAMi's scheduler extender composes with the HAMi Ascend device plugin.
    assert "HAMi Ascend device plugin" in content


def test_project_evaluation_and_decision_pages_link_to_their_focus_views(bob_client, builtin):
    response = bob_client.get(reverse("catalog:project-detail", args=["hami"]))

    assert f"{reverse('map:page')}?near=hami" in response.content.decode()


def test_the_evaluation_links_its_candidates_and_its_decided_stack_to_the_map(client):
    from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

    cast = make_cast()
    small_catalog()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    client.force_login(cast.bob)

    detail = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()
    decision = client.get(reverse("evaluations:decision", args=[evaluation.pk])).content.decode()

    focus = "rows=hami%2Fdevice-plugin%2Cvolcano%2Fscheduler"
    assert f"{reverse('map:page')}?{focus}" in detail  # the candidates, and the stack
    assert f"{reverse('matrix:page')}?{focus}" in detail
    assert f"{reverse('map:page')}?{focus}" in decision
