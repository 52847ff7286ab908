"""install.sh removes the queues an earlier EcoMap decision placed that this one no longer has,
and nothing else: each generated queue object carries app.kubernetes.io/managed-by=ecomap, and
the removal names what stays (label selector + metadata.name / metadata.namespace field
selectors, which every custom resource serves: Kubernetes docs, "Field Selectors").

The cluster below is what a first run left (three tenants) plus a queue a person made; the
decision is then revised to two tenants. The delete commands install.sh writes are evaluated
against that cluster as the API server would select objects for them."""

from __future__ import annotations

import shlex

import pytest

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts
from evaluations.configgen.owned import MANAGED_BY, OWNED
from evaluations.configgen.schemas import check_files
from tests.evaluations.configgen.builtin import row_facts

OURS = {MANAGED_BY: "ecomap"}
BASE = ["nvidia-gpu-operator/clusterpolicy", "nvidia-device-plugin/whole-gpu"]


def _files(scheduler: str, tenants: int):
    facts = DecisionFacts(
        evaluation_id=8,
        rows=tuple(row_facts(ref) for ref in [*BASE, scheduler]),
        profile=Profile.from_dict(
            {
                "workload_types": ["training"],
                "tenant_count": tenants,
                "gpu_model": "H100 80GB",
                "node_count": 4,
            }
        ),
    )
    files = generate(facts)
    assert check_files(files) == []
    return files


def _objects(files) -> set[tuple[str, str, str]]:
    """(resource, namespace, name) of every owned object the files create."""
    return {
        (
            OWNED[(f.kind, d.data["kind"])],
            d.data["metadata"].get("namespace", ""),
            d.data["metadata"]["name"],
        )
        for f in files
        for d in f.documents
        if (f.kind, d.data.get("kind")) in OWNED
    }


def _deletes(files) -> list[list[str]]:
    script = next(f for f in files if f.path == "install.sh").content
    lines = [line for line in script.splitlines() if line.startswith("kubectl delete ")]
    return [[w for w in shlex.split(line) if w != "$KUBECTL_DRY"] for line in lines]


def _selected(command: list[str], cluster: dict[tuple[str, str, str], dict[str, str]]):
    """The objects of `cluster` a `kubectl delete RESOURCE -l K=V --field-selector F!=X,...
    [-A | -n NS]` command selects."""
    resource = command[2]
    key, _eq, value = command[command.index("-l") + 1].partition("=")
    fields = [
        term.split("!=") for term in command[command.index("--field-selector") + 1].split(",")
    ]
    namespace = command[command.index("-n") + 1] if "-n" in command else None
    chosen = set()
    for (res, ns, name), labels in cluster.items():
        if res != resource or labels.get(key) != value:
            continue
        if "-A" not in command and ns != (namespace or ""):
            continue  # cluster-scoped kinds: no namespace flag, no namespace
        actual = {"metadata.name": name, "metadata.namespace": ns}
        if all(actual[field] != excluded for field, excluded in fields):
            chosen.add((res, ns, name))
    return chosen


@pytest.mark.parametrize(
    "scheduler", ["kueue/controller", "volcano/scheduler", "kai-scheduler/scheduler"]
)
def test_a_revised_decision_removes_the_queues_of_a_tenant_it_no_longer_has(scheduler):
    before, after = _files(scheduler, 3), _files(scheduler, 2)
    placed = _objects(before)
    hand_made = {(resource, "", "team-made") for resource, _ns, _name in placed}
    cluster = {obj: dict(OURS) for obj in placed} | {obj: {} for obj in hand_made}

    deleted = set()
    for command in _deletes(after):
        assert command[3:] and "--wait=false" in command  # Kueue's finalizers never block it
        deleted |= _selected(command, cluster)

    kept = _objects(after)
    assert deleted == placed - kept  # exactly the third tenant's queues
    assert deleted and all("tenant-3" in (ns, name) for _r, ns, name in deleted)
    assert not deleted & hand_made  # a queue a person made is never touched


def test_every_queue_object_is_labelled_and_removal_comes_after_the_applies():
    files = _files("kueue/controller", 2)
    for file in files:
        for doc in file.documents:
            if (file.kind, doc.data.get("kind")) in OWNED:
                assert doc.data["metadata"]["labels"] == OURS, (file.path, doc.data["kind"])
    script = next(f for f in files if f.path == "install.sh").content.splitlines()
    applies = [i for i, line in enumerate(script) if line.startswith("kubectl apply -f kueue/")]
    deletes = [i for i, line in enumerate(script) if line.startswith("kubectl delete ")]
    assert applies and deletes and max(applies) < min(deletes)
    for index in deletes:
        assert script[index].endswith(" $KUBECTL_DRY")  # DRY_RUN=1 shows what would go
        assert not script[index].endswith("|| true")  # a refusal (Volcano: pods) stops the run
        assert script[index - 1].startswith("# EcoMap's ")  # named in the comment above


def test_nothing_to_remove_on_a_first_run_selects_nothing():
    files = _files("kueue/controller", 2)
    cluster = {obj: dict(OURS) for obj in _objects(files)}
    assert all(not _selected(command, cluster) for command in _deletes(files))
