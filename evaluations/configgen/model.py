"""What a generator reads (a decision's facts, each pool sized) and what it writes (files of YAML
documents whose header comments say where every value came from). Plain Python."""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from catalog.engine.profile import Profile
from catalog.engine.text import Text, _
from evaluations.capacity.sizing import Cluster, PoolSize
from evaluations.configgen.names import comment_text

# The node label every generated pool is selected by (EcoMap's own key, docs/configgen.md).
POOL_LABEL = "ecomap.io/pool"
GLOB = set("*?[")


# libyaml's emitter and parser when PyYAML has them (its wheels do): the same YAML, written and
# read back several times faster than the pure-Python ones (bench/configgen).
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Dumper(SAFE_DUMPER):  # type: ignore[misc, valid-type]
    """PyYAML's safe dumper writing a multi-line string as a literal block (a Configuration
    embedded in Helm values reads as YAML, not as one escaped line)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


@functools.cache
def _release_facts(path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    configs = {
        release: entry["config"] for entry in data["entries"] for release in entry["releases"]
    }
    return data["source"], configs


def release_default(path: Path, release: str) -> tuple[str, dict[str, Any] | None]:
    """From a facts file of chart defaults per release (catalog/data/facts/*-config.yaml:
    `source` with `{release}`, `entries` of `releases` and `config`): the source of `release`
    ("0.19.2", a leading v ignored) and a copy of its default, None when the file lacks it."""
    source, configs = _release_facts(path)
    found = configs.get(release.removeprefix("v"))
    return (
        source.format(release=release.removeprefix("v")),
        copy.deepcopy(found) if found is not None else None,
    )


class ConfigRefused(ValueError):
    """The decision cannot be turned into configuration; the message says why."""


def unknown_model(said: str | None) -> Text:
    """Why step 1's GPU model gives no layout (MIG or AMD partitions): `said` as typed."""
    if said:
        return _(
            "step 1 names GPU model %(model)s, which is not in EcoMap's GPU facts", model=repr(said)
        )
    return _("step 1 names no GPU model")


# Device plugins that split each GPU into vGPUs by memory and compute share (HAMi-core).
VGPU_SHARERS = ("hami", "volcano-vgpu-device-plugin")


@dataclass(frozen=True, slots=True)
class Chart:
    """A project's Helm chart as its catalog row states it (bundle `config.helm`, validated by
    the bundle schema: no word of it can carry shell or YAML)."""

    chart: str  # REPO/CHART or an oci:// reference
    release: str
    namespace: str
    source: str  # where the project's documentation installs it so
    repository: str = ""  # the URL `helm repo add REPO` adds (REPO: the chart's first part)
    version_prefix: str = ""  # "v" when the chart's versions carry it (v26.7.0)

    @classmethod
    def of(cls, config: Any) -> Chart | None:
        """The chart a row's stored `config` names; None when it names none."""
        helm = (config or {}).get("helm") if isinstance(config, dict) else None
        if not helm or not all(helm.get(key) for key in ("chart", "release", "namespace")):
            return None
        return cls(
            chart=str(helm["chart"]),
            release=str(helm["release"]),
            namespace=str(helm["namespace"]),
            source=str(next(iter(config.get("evidence") or []), "")),
            repository=str(helm.get("repository") or ""),
            version_prefix=str(helm.get("version_prefix") or ""),
        )

    @property
    def repository_name(self) -> str:
        return "" if self.chart.startswith("oci://") else self.chart.split("/", 1)[0]

    def version(self, row_version: str) -> str:
        return self.version_prefix + row_version.removeprefix("v")


@dataclass(frozen=True, slots=True)
class RowFacts:
    """A decided catalog row as it was pinned (or as it stands, before approval)."""

    ref: str
    layer: str = ""
    units: tuple[str, ...] = ()
    provides: tuple[str, ...] = ()
    docs: str = ""  # the project's homepage, where install.sh sends a reader it has no chart for
    version: str = ""
    dra_drivers: tuple[str, ...] = ()  # the DRA driver names it publishes (detect.dra_drivers)
    chart: Chart | None = None  # how install.sh installs it (the row's `config.helm`)
    # Set when step 1 says the project is installed: `version` is then the installed release
    # (the files target it) and this the release the catalog's row was verified at.
    catalog_version: str = ""

    @property
    def project(self) -> str:
        return self.ref.split("/", 1)[0]

    @property
    def resources(self) -> tuple[str, ...]:
        """The extended resources the row advertises (`resource:*` it provides, no patterns)."""
        return tuple(
            item.split(":", 1)[1]
            for item in self.provides
            if item.startswith("resource:") and not GLOB & set(item)
        )

    @property
    def device_classes(self) -> tuple[str, ...]:
        """The DeviceClasses the row's own chart installs (`deviceclass:*` it provides)."""
        return tuple(
            item.split(":", 1)[1]
            for item in self.provides
            if item.startswith("deviceclass:") and not GLOB & set(item)
        )

    def cites(self) -> str:
        return f"row {self.ref}" + (f" {self.version}" if self.version else "")


@dataclass(frozen=True, slots=True)
class DecisionFacts:
    """A decision and the evaluation's step 1, as the generators read them."""

    evaluation_id: int
    rows: tuple[RowFacts, ...]
    profile: Profile
    pools: dict[str, list[str]] = field(default_factory=dict)
    pool_tenant_sharing: dict[str, str] = field(default_factory=dict)
    approved: str = ""  # "approved 2026-12-01, catalog revision 7" or "" (not approved yet)
    tenants: tuple[str, ...] | None = None  # None: tenant-1 … tenant-N of step 1's count
    # pool -> the node group it lives on (profile v2); a pool not named is placed by
    # capacity_of.pool_groups.
    pool_groups: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"evaluation-{self.evaluation_id}"

    @property
    def source(self) -> str:
        state = self.approved or "not approved yet"
        return f"the decision of evaluation {self.evaluation_id} ({state})"

    def row(self, ref: str) -> RowFacts | None:
        return next((row for row in self.rows if row.ref == ref), None)

    def projects(self) -> set[str]:
        return {row.project for row in self.rows}


@dataclass(slots=True)
class Pool:
    """One node pool of the decision with its rows and its capacity sizing."""

    name: str
    rows: list[RowFacts]
    size: PoolSize
    cluster: Cluster
    quotas: dict[str, int]  # tenant (as named in the files) -> GPUs
    # The MIG strategy in force when something outside the pool sets it for every pool (the GPU
    # Operator's mig.strategy, capacity_of.operator_strategy); None: the pool's own.
    strategy: str | None = None

    @property
    def data_plane(self) -> list[RowFacts]:
        return [row for row in self.rows if row.layer == "data_plane"]

    def has(self, ref_or_project: str) -> bool:
        return any(ref_or_project in (row.ref, row.project) for row in self.rows)

    def serves(self, project: str) -> bool:
        """Whether a data-plane row of the project runs on the pool's nodes: a cluster-wide row
        of it (HAMi's scheduler) does not make every pool one its device plugin serves."""
        return any(row.project == project for row in self.data_plane)

    def refs(self) -> list[str]:
        return [row.ref for row in self.rows]

    @property
    def shares_vgpus(self) -> bool:
        """Whether a vGPU device plugin (HAMi's, or HAMi's for Volcano) splits the pool's GPUs:
        no MIG layout is cut for it and NVIDIA's device plugin does not serve it."""
        return any(self.serves(project) for project in VGPU_SHARERS)

    @property
    def resources(self) -> list[str]:
        """Every resource the pool's data-plane rows advertise, sorted."""
        return sorted({name for row in self.data_plane for name in row.resources})

    @property
    def is_mig(self) -> bool:
        return self.size.unit == "mig_slice" and bool(self.size.mig_geometry)

    def cites_gpus(self) -> str:
        return (
            f"capacity sizing: pool {self.name} has {self.size.nodes} nodes x "
            f"{self.cluster.gpus_per_node} GPUs = {self.size.gpus} GPUs"
        )


@dataclass(slots=True)
class Document:
    """One YAML document and why each of its values is what it is: (path, value, source)."""

    data: dict[str, Any]
    why: list[tuple[str, Any, str]] = field(default_factory=list)
    # What the document is for where its YAML cannot say it (a claim template's pool and DRA
    # driver): read by the drift compare, never written to the file.
    about: dict[str, Any] = field(default_factory=dict)

    def note(self, path: str, value: Any, source: str) -> Any:
        self.why.append((path, value, source))
        return value


@dataclass(slots=True)
class GeneratedFile:
    path: str
    kind: str  # the schema the file is checked against (schemas.SCHEMAS)
    documents: list[Document]
    header: list[str] = field(default_factory=list)
    text: str | None = None  # a file that is not YAML documents (install.sh): its whole text
    # The YAML as written once the file is final (`freeze`): read many times, rendered once.
    rendered: str | None = field(default=None, repr=False, compare=False)

    def freeze(self) -> GeneratedFile:
        """Render the content once; the file must not change afterwards (checked files do not)."""
        self.rendered = None
        self.rendered = self.content
        return self

    @property
    def content(self) -> str:
        if self.text is not None:
            return self.text
        if self.rendered is not None:
            return self.rendered
        lines = [f"# {comment_text(line)}" for line in self.header]
        parts = []
        for number, document in enumerate(self.documents):
            comments = list(lines) if number == 0 else []
            if document.why:
                comments.append("# Where each value comes from:")
                for path, value, source in document.why:
                    shown = yaml.dump(
                        value, Dumper=SAFE_DUMPER, default_flow_style=True, width=10_000
                    ).strip()
                    shown = shown.removesuffix("\n...").removesuffix("...").strip()
                    comments.append(
                        f"#   {comment_text(path)} = {comment_text(shown)}: {comment_text(source)}"
                    )
            body = yaml.dump(
                document.data,
                Dumper=_Dumper,
                sort_keys=False,
                default_flow_style=False,
                allow_unicode=True,
            )
            parts.append("\n".join(comments) + ("\n" if comments else "") + body)
        return "---\n".join(parts)

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind, "content": self.content}


@dataclass(frozen=True, slots=True)
class Drift:
    """One difference between the cluster and a generated file."""

    path: str
    message: Text
    severity: str
    compared: bool = True  # False: the snapshot cannot show what the file sets

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": str(self.message), "severity": self.severity}


def tainted(facts: DecisionFacts) -> bool:
    """Whether the pools' nodes are tainted: with more than one pool, so work lands only where
    its queue's flavor or its node selector and toleration send it."""
    return len(facts.pools) > 1
