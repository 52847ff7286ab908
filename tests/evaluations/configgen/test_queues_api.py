"""A stored decision with Volcano and NVIDIA's DRA driver, read as pinned at approval, through
the configuration API: the queue and claim files come back, in kinds the API documents."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command

from evaluations.decisions.drift import rows_as_stored
from evaluations.decisions.models import Decision
from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation
from tests.factories import make_user

pytestmark = pytest.mark.django_db

ROWS = [
    "nvidia-gpu-operator/clusterpolicy",
    "nvidia-device-plugin/whole-gpu",
    "nvidia-dra-driver-gpu/gpu-kubelet-plugin",
    "volcano/scheduler",
]


def test_api_serves_volcano_queues_and_claim_templates_of_the_pinned_driver(
    builtin_catalog, client
):
    user = make_user("demo")
    call_command("seed_demo_team", "demo", verbosity=0)
    evaluation = Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )
    # The device plugin and the DRA driver's GPU plugin each own their pool's GPUs: on the same
    # nodes both would hand out the same devices, which the round trip refuses.
    pools = {"claims": [ROWS[2]], "plugin": [ROWS[1]]}
    Decision.objects.filter(evaluation=evaluation).update(
        rows=ROWS, pools=pools, approved_rows=rows_as_stored(ROWS)
    )
    client.force_login(user)

    response = client.get(f"/api/v1/evaluations/{evaluation.pk}/config/")

    assert response.status_code == 200
    files = {f["path"]: f for f in response.json()["files"]}
    assert files["volcano/queues.yaml"]["kind"] == "volcano"
    queues = list(yaml.safe_load_all(files["volcano/queues.yaml"]["content"]))
    assert len(queues) == 12  # the demo's twelve tenants
    templates = list(yaml.safe_load_all(files["dra/resource-claim-templates.yaml"]["content"]))
    assert files["dra/resource-claim-templates.yaml"]["kind"] == "dra"
    # the driver name and its chart's class come from the row as pinned (detect.dra_drivers,
    # deviceclass:gpu.nvidia.com), so no DeviceClass file is generated
    assert "dra/device-classes.yaml" not in files
    request = templates[0]["spec"]["spec"]["devices"]["requests"][0]
    assert (request.get("exactly") or request)["deviceClassName"] == "gpu.nvidia.com"
