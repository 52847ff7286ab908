"""GPU models as catalog facts: memory, sharing, MIG profiles, AMD partition modes and counts.

The facts live in catalog/data/facts/gpus.yaml (format ecomap.gpus/v1, every model sourced). This
module loads and validates them once, finds the model a team means from what it types ("nvidia
h100", "A100-SXM4-80GB", "mi300x"), and answers whether a set of MIG GPU instances fits on one GPU:
each instance starts at one of its profile's placements and occupies `size` memory slices, and no
two instances may share a slice (the rule `nvidia-smi mig -lgipp` placements express).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from catalog.engine.units import PARTITION_FEATURES, VENDOR_PARTITIONS

GPUS_PATH = Path(__file__).resolve().parents[1] / "data" / "facts" / "gpus.yaml"
FORMAT = "ecomap.gpus/v1"

SHARING_FEATURES = (
    "mig",
    "mps",
    "time_slicing",
    "vgpu",
    "amd_compute_partition",
    "amd_memory_partition",
)
GPU_VENDORS = ("nvidia", "amd", "intel", "huawei")

# Words teams add or drop at will; matching ignores them, and spaces, hyphens and underscores.
_VENDOR_WORDS = frozenset({"nvidia", "amd", "instinct", "huawei", "ascend", "intel", "habana"})
_SEPARATORS = re.compile(r"[\s\-_]+")
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True, slots=True)
class MigProfile:
    """One GPU instance profile: its slices, memory, how many fit, and where it may start."""

    name: str
    compute_slices: int
    memory_gb: float
    max_instances: int
    size: int
    placements: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GpuModel:
    """One GPU model with the sharing features it really has and the sources that say so."""

    key: str
    name: str
    vendor: str
    memory_gb: int
    aliases: tuple[str, ...]
    sharing: frozenset[str]
    mig_profiles: tuple[MigProfile, ...] = ()
    mig_max_instances: int | None = None
    amd_compute_partitions: tuple[str, ...] = ()
    amd_memory_partitions: tuple[str, ...] = ()
    # Logical GPUs per physical GPU in each compute mode that has a sourced count, and the
    # (compute, memory) pairs AMD documents for the model, in file order.
    amd_logical_gpus: tuple[tuple[str, int], ...] = ()
    amd_combinations: tuple[tuple[str, str], ...] = ()
    sources: tuple[str, ...] = ()
    verified_at: str = ""
    unverified: tuple[str, ...] = ()
    # Interfaces (catalog identifiers, globs allowed) a stack must provide before jobs may span
    # several of these GPUs' nodes: a GB200 NVL72 rack shares GPU memory over Multi-Node NVLink
    # only inside a ComputeDomain.
    multi_node_requires: tuple[str, ...] = ()
    # The interfaces (catalog identifiers, globs allowed) a device presenter offers this model as:
    # a device plugin's extended resource or a DRA driver's DeviceClass. Stated only where one
    # vendor makes devices that need different presenters (Intel GPUs and Intel Gaudi).
    presented_as: tuple[str, ...] = ()

    @property
    def has_mig(self) -> bool:
        return "mig" in self.sharing

    @property
    def partition_unit(self) -> str | None:
        """The unit of this vendor's hardware partitions (mig_slice on NVIDIA, amd_partition on
        AMD); None where the facts describe none for the vendor."""
        return VENDOR_PARTITIONS.get(self.vendor)

    @property
    def has_partitions(self) -> bool:
        """Whether this model can be cut into its vendor's hardware partitions."""
        unit = self.partition_unit
        return unit is not None and PARTITION_FEATURES[unit] in self.sharing

    def amd_partitions_per_gpu(self, compute: str) -> int | None:
        """Logical GPUs one GPU shows in compute mode `compute`; None without a sourced count."""
        return dict(self.amd_logical_gpus).get(compute)

    def mig_profile(self, name: str) -> MigProfile | None:
        """The profile called `name` on this model ("1g.10gb"; a "MIG " prefix is tolerated)."""
        wanted = str(name).strip().lower().removeprefix("mig ").strip()
        return next((p for p in self.mig_profiles if p.name.lower() == wanted), None)


def _normalized(text: str) -> str:
    """What matching compares: lower case, vendor words and separators dropped."""
    words = _SEPARATORS.split(str(text).strip().lower())
    return "".join(word for word in words if word and word not in _VENDOR_WORDS)


class _Fields:
    """Reads one entry's fields, raising ValueError that names the file, the model and the field."""

    def __init__(self, path: Path, where: str, data: Any):
        if not isinstance(data, Mapping):
            raise ValueError(f"{path}: {where}: expected a mapping, got {type(data).__name__}")
        self.path, self.where, self.data = path, where, data

    def fail(self, field: str, problem: str) -> ValueError:
        return ValueError(f"{self.path}: {self.where}: field {field!r}: {problem}")

    def text(self, field: str) -> str:
        value = self.data.get(field)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(field, "must be a non-empty string")
        return value.strip()

    def count(self, field: str, *, minimum: int = 1) -> int:
        value = self.data.get(field)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(field, f"must be an integer >= {minimum}, got {value!r}")
        return value

    def number(self, field: str) -> float:
        value = self.data.get(field)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.fail(field, f"must be a positive number, got {value!r}")
        return float(value)

    def texts(self, field: str, *, required: bool = False) -> tuple[str, ...]:
        value = self.data.get(field) or []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(field, "must be a list of non-empty strings")
        if required and not value:
            raise self.fail(field, "must not be empty")
        return tuple(value)


def _mig_profile(path: Path, where: str, data: Any) -> MigProfile:
    fields = _Fields(path, where, data)
    placements = fields.data.get("placements")
    if (
        not isinstance(placements, list)
        or not placements
        or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in placements)
    ):
        raise fields.fail("placements", "must be a non-empty list of slice indexes >= 0")
    return MigProfile(
        name=fields.text("name"),
        compute_slices=fields.count("compute_slices"),
        memory_gb=fields.number("memory_gb"),
        max_instances=fields.count("max_instances"),
        size=fields.count("size"),
        placements=tuple(placements),
    )


def _logical_gpus(section: _Fields, compute: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """`logical_gpus`: compute mode -> logical GPUs per GPU, each mode one of `compute`."""
    raw = section.data.get("logical_gpus") or {}
    if not isinstance(raw, Mapping):
        raise section.fail("logical_gpus", "must map compute modes to counts")
    counts = []
    for mode, count in raw.items():
        if mode not in compute:
            raise section.fail("logical_gpus", f"{mode!r} is not one of the compute modes")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise section.fail("logical_gpus", f"{mode}: must be an integer >= 1, got {count!r}")
        counts.append((mode, count))
    return tuple(counts)


def _combinations(
    section: _Fields, compute: tuple[str, ...], memory: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    """`combinations`: "COMPUTE-MEMORY" pairs, each mode one of the model's modes."""
    pairs = []
    for text in section.texts("combinations"):
        mode, _dash, nps = text.partition("-")
        if mode not in compute or nps not in memory:
            raise section.fail(
                "combinations", f"{text!r} is not a compute-memory pair of the model's modes"
            )
        pairs.append((mode, nps))
    return tuple(pairs)


# What a device presenter offers a model as: an extended resource or a DRA DeviceClass.
_PRESENTED_KINDS = ("resource", "deviceclass")


def _presented_as(fields: _Fields) -> tuple[str, ...]:
    """`presented_as`: interface identifiers of the kinds a device presenter provides."""
    interfaces = fields.texts("presented_as")
    for ident in interfaces:
        kind, colon, name = ident.partition(":")
        if not colon or not name or kind not in _PRESENTED_KINDS:
            raise fields.fail(
                "presented_as",
                f"{ident!r} is not a {' or '.join(_PRESENTED_KINDS)} identifier (kind:name)",
            )
    return interfaces


def _model(path: Path, index: int, data: Any) -> GpuModel:
    key = data.get("key") if isinstance(data, Mapping) else None
    fields = _Fields(path, f"model {key!r}" if key else f"model #{index + 1}", data)
    key = fields.text("key")
    if not _KEY.match(key):
        raise fields.fail("key", f"must be a lower-case slug, got {key!r}")
    vendor = fields.text("vendor")
    if vendor not in GPU_VENDORS:
        raise fields.fail("vendor", f"unknown vendor {vendor!r}; known: {', '.join(GPU_VENDORS)}")
    sharing = fields.texts("sharing")
    unknown = sorted(set(sharing) - set(SHARING_FEATURES))
    if unknown:
        known = ", ".join(SHARING_FEATURES)
        raise fields.fail("sharing", f"unknown feature(s) {', '.join(unknown)}; known: {known}")
    sources = fields.texts("sources", required=True)
    if not all(source.startswith("https://") for source in sources):
        raise fields.fail("sources", "every source must be an https:// URL")

    mig, max_instances, profiles = data.get("mig"), None, ()
    if mig is not None and "mig" not in sharing:
        raise fields.fail("mig", "a mig section needs the mig sharing feature")
    if "mig" in sharing:
        if mig is None:
            raise fields.fail("mig", "the mig sharing feature needs a mig section")
        section = _Fields(path, f"{fields.where} mig", mig)
        max_instances = section.count("max_instances")
        raw = mig.get("profiles")
        if not isinstance(raw, list) or not raw:
            raise section.fail("profiles", "must be a non-empty list")
        profiles = tuple(
            _mig_profile(path, f"{fields.where} mig profile #{i + 1}", p) for i, p in enumerate(raw)
        )
        twice = [name for name, n in Counter(p.name for p in profiles).items() if n > 1]
        if twice:
            raise section.fail("profiles", f"duplicate profile name(s) {', '.join(twice)}")

    partitions = data.get("amd_partitions")
    compute, memory, logical, pairs = (), (), (), ()
    if partitions is not None:
        if vendor != "amd":
            raise fields.fail("amd_partitions", "only AMD models have amd_partitions")
        section = _Fields(path, f"{fields.where} amd_partitions", partitions)
        compute, memory = section.texts("compute"), section.texts("memory")
        logical = _logical_gpus(section, compute)
        pairs = _combinations(section, compute, memory)
    for feature, modes in (("amd_compute_partition", compute), ("amd_memory_partition", memory)):
        if bool(modes) != (feature in sharing):
            raise fields.fail("amd_partitions", f"modes and the {feature} feature go together")

    return GpuModel(
        key=key,
        name=fields.text("name"),
        vendor=vendor,
        memory_gb=fields.count("memory_gb"),
        aliases=fields.texts("aliases"),
        sharing=frozenset(sharing),
        mig_profiles=profiles,
        mig_max_instances=max_instances,
        amd_compute_partitions=compute,
        amd_memory_partitions=memory,
        amd_logical_gpus=logical,
        amd_combinations=pairs,
        sources=sources,
        verified_at=fields.text("verified_at"),
        unverified=fields.texts("unverified"),
        multi_node_requires=fields.texts("multi_node_requires"),
        presented_as=_presented_as(fields),
    )


# libyaml's safe loader where it is built in (ten times faster), PyYAML's own otherwise.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_models(path: Path) -> tuple[GpuModel, ...]:
    """Every model of the file at `path`, validated; ValueError names the model and the field."""
    data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_SAFE_LOADER)  # noqa: S506
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: field 'format': expected {FORMAT!r}")
    raw = data.get("models")
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{path}: field 'models': must be a non-empty list")
    models = tuple(_model(Path(path), i, entry) for i, entry in enumerate(raw))
    owners: dict[str, str] = {}
    seen: set[str] = set()
    for model in models:
        where = f"{path}: model {model.key!r}"
        if model.key in seen:
            raise ValueError(f"{where}: field 'key': duplicate key")
        seen.add(model.key)
        for text in (model.key, model.name, *model.aliases):
            normal = _normalized(text)
            if not normal:
                raise ValueError(f"{where}: field 'aliases': {text!r} is only vendor words")
            owner = owners.setdefault(normal, model.key)
            if owner != model.key:
                raise ValueError(f"{where}: field 'aliases': {text!r} already names {owner!r}")
    return models


@functools.cache
def gpu_models() -> tuple[GpuModel, ...]:
    """Every GPU model of the built-in facts, in file order."""
    return _load_models(GPUS_PATH)


@functools.cache
def _index() -> Mapping[str, GpuModel]:
    return {
        _normalized(text): model
        for model in gpu_models()
        for text in (model.key, model.name, *model.aliases)
    }


def gpu_model_find(text: str | None) -> GpuModel | None:
    """The model `text` names by key, name or alias ("nvidia h100", "A100-SXM4-80GB"), or None."""
    normal = _normalized(text) if text is not None else ""
    return _index().get(normal) if normal else None


def gpu_model_choices() -> list[tuple[str, str]]:
    """(key, name) of every model in file order, for a form's choice list."""
    return [(model.key, model.name) for model in gpu_models()]


def mig_profiles_for(text: str | None) -> tuple[MigProfile, ...]:
    """The MIG profiles of the model `text` names; () when unknown or without MIG."""
    model = gpu_model_find(text)
    return model.mig_profiles if model is not None else ()


def mig_layout_valid(model: GpuModel, profiles: Sequence[str]) -> bool:
    """Whether GPU instances of these profiles can coexist on ONE GPU of `model`: every profile
    exists there, each within its own instance count and all within the model's, and every
    instance gets a placement whose memory slices no other instance uses."""
    if not model.has_mig or isinstance(profiles, str):
        return False
    wanted = [model.mig_profile(name) for name in profiles]
    if any(profile is None for profile in wanted):
        return False
    chosen: list[MigProfile] = [p for p in wanted if p is not None]
    if len(chosen) > (model.mig_max_instances or 0):
        return False
    if any(n > profile.max_instances for profile, n in Counter(chosen).items()):
        return False
    # Largest first, identical profiles next to each other: fewer dead ends to backtrack from.
    chosen.sort(key=lambda p: (-p.size, len(p.placements), p.name))

    def place(i: int, used: int, lowest: int) -> bool:
        if i == len(chosen):
            return True
        profile = chosen[i]
        for start in profile.placements:
            mask = ((1 << profile.size) - 1) << start
            if start < lowest or used & mask:  # a repeated profile starts after the previous one
                continue
            repeat = i + 1 < len(chosen) and chosen[i + 1] == profile
            if place(i + 1, used | mask, start + 1 if repeat else 0):
                return True
        return False

    return place(0, 0, 0)
