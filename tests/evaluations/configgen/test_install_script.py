"""install.sh: the commands that apply the generated files, in a working order, installing each
decided project's chart at the decided version as its documentation does; only helm and
kubectl, every word quoted, only known charts."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from django.core.management import CommandError, call_command

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.install import INSTALL_SCRIPT, check_install_script
from evaluations.configgen.model import Chart, DecisionFacts, GeneratedFile, RowFacts
from evaluations.configgen.schemas import check_files
from evaluations.management.commands.seed_demo_team import INFERENCE, TRAINING
from evaluations.models import Evaluation
from tests.evaluations.configgen.builtin import row_facts
from tests.factories import make_user


def _script(refs) -> GeneratedFile:
    facts = DecisionFacts(
        evaluation_id=3,
        rows=tuple(row_facts(ref) for ref in refs),
        profile=Profile.from_dict(INFERENCE["profile"]),
    )
    files = generate(facts)
    assert check_files(files) == []
    return next(f for f in files if f.kind == INSTALL_SCRIPT)


def _commands(script: GeneratedFile) -> list[list[str]]:
    """The commands as run without DRY_RUN: the dry-run variables expand to nothing, and a
    removal's `|| true` is not part of the command."""
    return [
        [
            word
            for word in shlex.split(line.partition(" --dry-run")[0].removesuffix(" || true"))
            if word not in ("$KUBECTL_DRY", "$HELM_DRY")
        ]
        for line in script.content.splitlines()
        if line.split(" ")[0] in ("helm", "kubectl")
    ]


def test_the_demo_decision_installs_its_charts_at_the_decided_versions():
    commands = _commands(_script(INFERENCE["candidates"]))
    installs = [c for c in commands if c[:3] == ["helm", "upgrade", "--install"]]

    # Charts as the projects' docs install them; versions as the catalog rows pin them
    # (GPU Operator v26.7.0, HAMi v2.10.0, Kueue v0.19.2).
    assert [(c[3], c[4], c[c.index("--version") + 1]) for c in installs] == [
        ("gpu-operator", "nvidia/gpu-operator", "v26.7.0"),
        ("hami", "hami-charts/hami", "2.10.0"),
        ("kueue", "oci://registry.k8s.io/kueue/charts/kueue", "0.19.2"),
    ]
    assert installs[0][installs[0].index("-f") + 1] == "gpu-operator/values.yaml"
    assert installs[1][installs[1].index("-f") + 1] == "hami/values.yaml"


def test_queues_are_applied_after_kueue_and_nodes_labelled_before_the_device_plugins():
    commands = _commands(_script(INFERENCE["candidates"]))
    position = {" ".join(c): i for i, c in enumerate(commands)}
    kueue = next(i for c, i in position.items() if c.startswith("helm upgrade --install kueue"))
    hami = next(i for c, i in position.items() if c.startswith("helm upgrade --install hami"))
    label = next(i for c, i in position.items() if c.startswith("kubectl label node"))

    assert position["kubectl apply -f kueue/cluster-queues.yaml"] > kueue
    assert label < hami  # HAMi's device plugin runs only on nodes labelled gpu=on


def test_tenant_namespaces_are_created_in_step_1s_order():
    """INFERENCE has twelve tenants: tenant-10 comes after tenant-9, not after tenant-1."""
    commands = _commands(_script(INFERENCE["candidates"]))
    created = [c[3] for c in commands if c[:3] == ["kubectl", "create", "namespace"]]

    assert created == [f"tenant-{number}" for number in range(1, 13)]


@pytest.mark.parametrize(
    "refs",
    [
        INFERENCE["candidates"],
        TRAINING["candidates"],
        [
            "nvidia-gpu-operator/clusterpolicy",
            "nvidia-device-plugin/whole-gpu",
            "volcano/scheduler",
        ],
        [
            "nvidia-gpu-operator/clusterpolicy",
            "nvidia-device-plugin/whole-gpu",
            "kai-scheduler/scheduler",
        ],
    ],
    ids=["inference", "training", "volcano", "kai"],
)
def test_the_generated_script_is_shellcheck_clean_posix_sh(refs):
    """install.sh runs under `sh` (the README's `sh install.sh`): shellcheck as POSIX sh, every
    finding, warnings and style included, is a defect."""
    result = subprocess.run(  # noqa: S603 - a linter on generated text
        ["/usr/bin/shellcheck", "--shell=sh", "--severity=style", "-"],
        input=_script(refs).content,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stdout


def test_a_kai_decision_installs_kai_before_its_queues_are_applied():
    # KAI Scheduler v0.17.0 README, "Install from Production": helm upgrade -i kai-scheduler
    # oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler -n kai-scheduler
    # --create-namespace --version <VERSION>; the catalog row pins v0.17.0.
    refs = [
        "nvidia-gpu-operator/clusterpolicy",
        "nvidia-device-plugin/whole-gpu",
        "kai-scheduler/scheduler",
    ]
    commands = _commands(_script(refs))
    kai = next(
        i
        for i, c in enumerate(commands)
        if c[:4] == ["helm", "upgrade", "--install", "kai-scheduler"]
    )
    install = commands[kai]

    assert install[4] == "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler"
    assert install[install.index("--version") + 1] == "v0.17.0"
    assert install[install.index("-n") + 1] == "kai-scheduler"
    assert commands.index(["kubectl", "apply", "-f", "kai-scheduler/queues.yaml"]) > kai


def test_a_project_without_a_verified_chart_is_left_to_its_documentation():
    script = _script([*INFERENCE["candidates"], "opencost/cost-model"])

    assert "install as https://www.opencost.io says" in script.content
    assert not any("opencost" in " ".join(c) for c in _commands(script))


def test_the_check_refuses_what_is_not_a_chart_reference_and_an_unquoted_word():
    """The shapes a catalog row may state (bundle schema, placement `config.helm`): a chart file
    by URL, a plain-http repository and a command in a word are not among them."""
    script = GeneratedFile(
        "install.sh",
        INSTALL_SCRIPT,
        [],
        text="#!/bin/sh\nset -euf\n"
        "helm upgrade --install x https://evil.example/chart.tgz\n"
        "helm repo add --force-update evil http://evil.example/charts\n"
        "kubectl label node n a=b;reboot\n",
    )

    problems = check_install_script(script)

    assert any("line 3: not a chart reference" in p for p in problems)
    assert any("line 4: not a chart repository URL" in p for p in problems)
    assert any("'a=b;reboot' is not quoted" in p for p in problems)


def test_a_vendors_project_whose_row_states_its_chart_is_installed_after_the_known_ones():
    """Charts are catalog data: a project imported with `config.helm` is installed from it, at
    its row's version, after the operators, device plugins and schedulers EcoMap orders."""
    vendor = RowFacts(
        ref="acme-scheduler/scheduler",
        layer="control_plane",
        version="1.2.3",
        chart=Chart.of(
            {
                "helm": {
                    "chart": "acme/acme-scheduler",
                    "repository": "https://charts.acme.example/stable",
                    "release": "acme",
                    "namespace": "acme-system",
                },
                "evidence": ["https://docs.acme.example/1.2.3/install"],
            }
        ),
    )
    facts = DecisionFacts(
        evaluation_id=3,
        rows=(*(row_facts(ref) for ref in INFERENCE["candidates"]), vendor),
        profile=Profile.from_dict(INFERENCE["profile"]),
    )
    files = generate(facts)
    assert check_files(files) == []
    commands = _commands(next(f for f in files if f.kind == INSTALL_SCRIPT))
    installs = [c[3] for c in commands if c[:3] == ["helm", "upgrade", "--install"]]

    assert installs == ["gpu-operator", "hami", "kueue", "acme"]
    acme = next(c for c in commands if c[:4] == ["helm", "upgrade", "--install", "acme"])
    assert acme[4:7] == ["acme/acme-scheduler", "--version", "1.2.3"]
    assert [
        "helm",
        "repo",
        "add",
        "--force-update",
        "acme",
        "https://charts.acme.example/stable",
    ] in commands


@pytest.mark.django_db
def test_round_trip_config_prints_the_round_trip(builtin_catalog, capsys):
    call_command("seed_demo_team", make_user("demo").username, verbosity=0)
    evaluation = Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )

    call_command("round_trip_config", str(evaluation.pk))

    assert "round trip: 0 error(s)" in capsys.readouterr().out


@pytest.mark.django_db
def test_round_trip_config_fails_on_a_round_trip_error(builtin_catalog):
    call_command("seed_demo_team", make_user("demo").username, verbosity=0)
    evaluation = Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )
    decision = evaluation.decision
    # The decision names the whole-GPU NVIDIA device plugin besides HAMi: the round trip finds
    # two device plugins on the same nodes.
    decision.rows = [*decision.rows, "nvidia-device-plugin/whole-gpu"]
    decision.approved_rows = {}  # read the rows as the catalog states them
    decision.save(update_fields=["rows", "approved_rows"])

    with pytest.raises(CommandError, match="round trip"):
        call_command("round_trip_config", str(evaluation.pk))


def test_round_trip_config_says_why_a_cluster_past_the_checks_limits_is_not_checked(
    builtin_catalog,
):
    # A step 1 of 30,000 nodes projects a snapshot past the check's 20,000-node limit
    # (catalog/engine/cluster/snapshot.py MAX_NODES): a message, not a traceback.
    call_command("seed_demo_team", make_user("demo").username, verbosity=0)
    evaluation = Evaluation.objects.get(title=TRAINING["title"])
    evaluation.profile = {**evaluation.profile, "node_count": 30_000}
    evaluation.save(update_fields=["profile"])

    with pytest.raises(CommandError, match="cannot be checked: .*30,000 nodes; at most 20,000"):
        call_command("round_trip_config", str(evaluation.pk))


def test_the_namespaces_the_generators_write_into_are_the_charts_namespaces():
    """The ConfigMaps and DeviceConfigs are written into the namespace the chart installs into,
    as the catalog rows state it; the constants used when a row states no chart agree."""
    from evaluations.configgen.generate_amd import AMD_NAMESPACE
    from evaluations.configgen.install import CONFIGMAP_NAMESPACE

    assert row_facts("amd-gpu-operator/deviceconfig").chart.namespace == AMD_NAMESPACE
    assert (
        row_facts("nvidia-gpu-operator/clusterpolicy").chart.namespace
        == (CONFIGMAP_NAMESPACE["nvidia-gpu-operator"])
    )
    assert (
        row_facts("nvidia-device-plugin/whole-gpu").chart.namespace
        == (CONFIGMAP_NAMESPACE["nvidia-device-plugin"])
    )


def test_only_a_taint_or_label_removal_may_fail_quietly():
    script = GeneratedFile(
        "install.sh",
        INSTALL_SCRIPT,
        [],
        text="#!/bin/sh\nset -euf\n"
        "kubectl taint node -l ecomap.io/pool ecomap.io/pool:NoSchedule- $KUBECTL_DRY || true\n"
        "kubectl apply -f kueue/cluster-queues.yaml $KUBECTL_DRY || true\n"
        "helm upgrade --install kueue oci://registry.k8s.io/kueue/charts/kueue $HELM_DRY\n",
    )

    problems = check_install_script(script)

    assert problems == ["install.sh line 4: only a taint or label removal may fail quietly"]
