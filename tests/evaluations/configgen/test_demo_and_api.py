"""The demo's decisions turned into configuration through the API and `export_config`, and who
may read it."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import CommandError, call_command

from evaluations.configgen.schemas import check_files
from evaluations.configgen.selectors import evaluation_config
from evaluations.decisions.models import Decision
from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation
from tests.factories import make_user

pytestmark = pytest.mark.django_db

# seed_demo_team's approved decision: GPU Operator + HAMi + its scheduler extender + Kueue for
# twelve tenants on A100 80GB (evaluations/management/commands/seed_demo_team.py, INFERENCE).
HAMI_RESOURCES = {"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
                  "nvidia.com/gpucores"}  # fmt: skip


@pytest.fixture
def demo(builtin_catalog):
    user = make_user("demo")
    call_command("seed_demo_team", "demo", verbosity=0)
    return user


def _approved():
    return Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )


def test_the_demos_decisions_give_files_that_validate(demo):
    decided = Evaluation.objects.filter(decision__isnull=False, team__slug="platform-team")
    assert decided.count() == 3  # the approved inference and training pools, notebooks in review
    for evaluation in decided:
        files = evaluation_config(evaluation)
        assert files
        assert check_files(files) == []
        for file in files:
            if file.kind == "install-script":  # a shell script, checked by check_files
                continue
            for document in yaml.safe_load_all(file.content):
                assert isinstance(document, dict)


def test_the_approved_demo_decision_gives_twelve_queues_covering_hami(demo):
    files = {f.path: f for f in evaluation_config(_approved())}

    queues = list(yaml.safe_load_all(files["kueue/cluster-queues.yaml"].content))
    assert len(queues) == 12  # tenant_count 12 in the demo's step 1
    for queue in queues:
        assert set(queue["spec"]["resourceGroups"][0]["coveredResources"]) >= HAMI_RESOURCES
    # Step 1 of the demo says no node count: the files say what they assumed.
    assert "ASSUMED: step 1 does not say how many GPU nodes" in files["nodes/shared.yaml"].content
    # HAMi serves the GPUs, so the operator's own device plugin is off (the demo's rationale).
    operator = yaml.safe_load(files["gpu-operator/values.yaml"].content)
    assert operator["devicePlugin"]["enabled"] is False


def test_api_serves_the_files_to_team_members(demo, client):
    client.force_login(demo)
    evaluation = _approved()

    response = client.get(f"/api/v1/evaluations/{evaluation.pk}/config/")

    assert response.status_code == 200
    body = response.json()
    assert body["evaluation"] == evaluation.pk
    paths = [f["path"] for f in body["files"]]
    assert "kueue/cluster-queues.yaml" in paths and "hami/values.yaml" in paths
    assert all(set(f) == {"path", "kind", "content"} for f in body["files"])


def test_api_answers_404_to_another_team(demo, client):
    outsider = make_user("mallory")
    client.force_login(outsider)

    response = client.get(f"/api/v1/evaluations/{_approved().pk}/config/")

    assert response.status_code == 404


def test_api_answers_409_without_a_decision(demo, client):
    client.force_login(demo)
    draft = Evaluation.objects.get(state="draft", team__slug="platform-team")

    response = client.get(f"/api/v1/evaluations/{draft.pk}/config/")

    assert response.status_code == 409
    assert "no decision yet" in response.json()["detail"]


def test_a_hostile_pool_name_is_refused_through_the_api(demo, client):
    client.force_login(demo)
    evaluation = _approved()
    Decision.objects.filter(evaluation=evaluation).update(
        pools={"a: b\n- c": ["hami/device-plugin"], "a-b-c": ["kueue/controller"]}
    )

    response = client.get(f"/api/v1/evaluations/{evaluation.pk}/config/")

    # Written as its slug (a-b-c, issue 42), the hostile name meets another pool's: refused.
    assert response.status_code == 409
    assert "the same label value" in response.json()["detail"]


def test_export_config_writes_the_files(demo, tmp_path, capsys):
    evaluation = _approved()

    call_command("export_config", str(evaluation.pk), str(tmp_path / "out"))

    written = sorted(p.relative_to(tmp_path / "out").as_posix()
                     for p in (tmp_path / "out").rglob("*") if p.is_file())  # fmt: skip
    assert written == sorted(f.path for f in evaluation_config(evaluation))
    assert "files written under" in capsys.readouterr().out


def test_export_config_refuses_an_evaluation_without_a_decision(demo, tmp_path):
    draft = Evaluation.objects.get(state="draft", team__slug="platform-team")
    with pytest.raises(CommandError, match="no decision yet"):
        call_command("export_config", str(draft.pk), str(tmp_path))


def test_the_schema_documents_the_config_endpoint_and_its_errors(demo, client):
    client.force_login(demo)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    operation = schema["paths"]["/api/v1/evaluations/{id}/config/"]["get"]
    assert {"200", "401", "404", "409"} <= set(operation["responses"])


def test_a_decision_pinned_before_rows_stated_their_chart_still_installs_them(demo):
    """Approved before catalog rows had `config`: its pinned rows carry none, and install.sh
    reads the charts from the catalog as it stands, at the pinned versions."""
    evaluation = Evaluation.objects.get(state="approved", title=INFERENCE["title"])
    decision = Decision.objects.get(evaluation=evaluation)
    pinned = {
        ref: {k: v for k, v in row.items() if k != "config"}
        for ref, row in decision.approved_rows.items()
    }
    Decision.objects.filter(pk=decision.pk).update(approved_rows=pinned)

    script = next(f for f in evaluation_config(evaluation) if f.path == "install.sh").content

    assert "helm upgrade --install hami hami-charts/hami --version 2.10.0" in script
    assert "helm upgrade --install gpu-operator nvidia/gpu-operator --version v26.7.0" in script
