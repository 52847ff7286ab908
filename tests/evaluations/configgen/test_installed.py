"""What step 1 says is installed is what the configuration targets (issue 38): the API versions
the installed release serves, and no silent upgrade in install.sh."""

from __future__ import annotations

import pytest
import yaml

from evaluations.configgen.selectors import decision_facts, evaluation_config
from evaluations.models import Evaluation

pytestmark = pytest.mark.django_db


def _installed(evaluation: Evaluation, version: str) -> Evaluation:
    evaluation.profile = {
        **evaluation.profile,
        "installed": [{"project": "kueue", "version": version}],
    }
    evaluation.save(update_fields=["profile"])
    return Evaluation.objects.get(pk=evaluation.pk)


def _file(files, path: str):
    return next(f for f in files if f.path == path)


def test_kueue_0_10_1_installed_gets_v1beta1_queues(approved):
    # Kueue serves v1beta2 from v0.15.0 (its ClusterQueue CRD at v0.14.0 lists v1beta1 only; at
    # v0.15.0 v1beta1 and v1beta2): 0.10.1 would refuse v1beta2 objects.
    files = evaluation_config(_installed(approved, "0.10.1"))

    queues = list(yaml.safe_load_all(_file(files, "kueue/cluster-queues.yaml").content))
    assert {doc["apiVersion"] for doc in queues if doc} == {"kueue.x-k8s.io/v1beta1"}


def test_install_sh_keeps_the_installed_kueue_and_names_the_upgrade_as_a_step(approved):
    files = evaluation_config(_installed(approved, "0.10.1"))

    script = _file(files, "install.sh").content
    helm = next(line for line in script.splitlines() if "helm upgrade --install kueue" in line)
    assert "--version 0.10.1" in helm
    assert "0.19.2" not in helm
    assert "kueue 0.10.1 is installed (step 1) and kept at that release" in script
    assert "Upgrading is a step of its own" in script
    # The upgrade is a decision: step 1 says the new release and every file is generated for it.
    assert "set kueue's installed version in step 1 to 0.19.2 and generate again" in script


def test_a_kueue_that_serves_v1beta2_keeps_it(approved):
    facts = decision_facts(_installed(approved, "0.16.0"))
    kueue = next(row for row in facts.rows if row.project == "kueue")

    assert "crd:kueue.x-k8s.io/v1beta2/ClusterQueue" in kueue.provides
    assert (kueue.version, kueue.catalog_version) == ("0.16.0", "v0.19.2")


def test_without_installed_components_the_catalog_release_is_used(approved):
    facts = decision_facts(approved)
    kueue = next(row for row in facts.rows if row.project == "kueue")

    assert (kueue.version, kueue.catalog_version) == ("v0.19.2", "")
