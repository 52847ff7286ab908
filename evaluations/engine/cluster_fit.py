"""What the profile's cluster facts say of a drafted stack: the GPU model and memory (MIG or
not, slice sizes), time windows (off-hours work borrowing the serving pool), tenant and node
counts. Also the verdict a draft's scoring fills in, shared with evaluations.engine.scoring."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog.engine.gpus import GpuModel, gpu_model_find
from catalog.engine.profile import Profile
from catalog.engine.text import Text, _, joined
from catalog.engine.units import PARTITION_UNITS
from catalog.engine.words import UNIT_WORDS, words
from evaluations.engine.drafting import FAIR_SHARING, QUOTA, SERVING_KINDS, _Draft, _time_shared

# Findings from the stack check: a gap costs more than any criterion can win back.
_FINDING_PENALTY = {"gap": 4.0, "warning": 1.5, "ok": 0.0}
# GPUs known to have or lack MIG, by the names teams write ("A100 80GB", "NVIDIA L40S"). A model
# matching neither is not judged: the profile's GPU model is free text.
_MIG_GPUS = re.compile(r"\b(A30|A100|A800|H100|H800|H20|H200|GH200|B100|B200|GB200|B300|GB300)\b")
_NO_MIG_GPUS = re.compile(
    r"\b(T4|V100|P100|P40|P4|L4|L20|L40S?|A2|A10G?|A16|A40|A4000|A5000|A6000|RTX\s?[2-4]0\d0)\b"
)
# MIG's smallest slice (1g) holds about an eighth of the GPU's memory (1g.10gb on an 80 GB A100).
_MIG_SLICES = 8
_MEMORY_SLICING = ("memory_compute_quota", "vgpu")
_WINDOW_WORDS = {"night": _("at night"), "weekend": _("at the weekend")}


def _mig_capable(model: str | None) -> bool | None:
    """Whether a GPU model has MIG: True, False, or None when the model is not known here.

    The GPU facts (catalog/data/facts/gpus.yaml) answer first; names they do not cover (older
    or consumer GPUs) are judged by their family."""
    known = gpu_model_find(model)
    if known is not None:
        return known.has_mig
    name = (model or "").upper()
    if _MIG_GPUS.search(name):
        return True
    if _NO_MIG_GPUS.search(name):
        return False
    return None


@dataclass(slots=True)
class _Verdict:
    """A draft's score and what it says in words; notes are costs the explanation names."""

    score: float = 0.0
    fits: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    breaches: int = 0  # work served below the hard isolation demanded for it
    # False while a slot's candidates are only being compared: the score without its words.
    words: bool = True


def _score_gpu_fit(
    units: list[str], where: Text, profile: Profile, out: _Verdict, model: GpuModel | None = None
) -> float:
    """What the pool's GPUs (its node group's `model`, else the profile's) say of its units:
    MIG on a GPU without it cannot work, and memory-slicing units are sized from the GPU's
    memory. An AMD model's partitions (amd_partition) are compute partitions (CPX/NPS), not MIG."""
    name = model.name if model is not None else profile.gpu_model
    memory = profile.gpu_memory_gb
    amd = model or gpu_model_find(profile.gpu_model)
    if "amd_partition" in units and amd is not None and amd.vendor == "amd":
        if not amd.has_partitions:
            out.missing.append(
                _(
                    "%(where)s: AMD partitions need an Instinct GPU with compute partitions "
                    "(MI300 series and later, GPU facts); %(model)s has none",
                    where=where,
                    model=amd.name,
                )
            )
            return -_FINDING_PENALTY["gap"]
        if amd.amd_partitions_per_gpu("CPX"):
            out.fits.append(
                _(
                    "%(where)s: %(model)s is split into compute partitions (up to %(count)s "
                    "logical GPUs each, GPU facts)",
                    where=where,
                    model=amd.name,
                    count=amd.amd_partitions_per_gpu("CPX"),
                )
            )
    if "mig_slice" in units:
        if _mig_capable(name) is False:
            out.missing.append(
                _(
                    "%(where)s: MIG slices need a GPU with MIG (A30, A100, H100, H200, "
                    "Blackwell); %(model)s has none",
                    where=where,
                    model=name,
                )
            )
            return -_FINDING_PENALTY["gap"]
        known = model or gpu_model_find(profile.gpu_model)
        if known is not None and known.mig_profiles:
            smallest = min(known.mig_profiles, key=lambda p: (p.memory_gb, p.name))
            out.fits.append(
                _(
                    "%(where)s: %(model)s's MIG profiles run from %(smallest)s to %(largest)s, "
                    "at most %(count)s instances per GPU (GPU facts)",
                    where=where,
                    model=known.name,
                    smallest=smallest.name,
                    largest=max(known.mig_profiles, key=lambda p: p.memory_gb).name,
                    count=known.mig_max_instances,
                )
            )
        elif memory:
            out.fits.append(
                _(
                    "%(where)s: on %(memory)s GB GPUs the smallest MIG slice (1g) holds about "
                    "%(slice)s GB, up to 7 slices per GPU",
                    where=where,
                    memory=memory,
                    slice=max(1, round(memory / _MIG_SLICES)),
                )
            )
    sliced = [u for u in units if u in _MEMORY_SLICING]
    if memory and sliced:
        out.fits.append(
            _(
                "%(where)s: pods ask for GPU memory by size out of the %(memory)s GB of each GPU "
                "(%(units)s)",
                where=where,
                memory=memory,
                units=", ".join(sliced),
            )
        )
    return 0.0


def _score_cluster(
    draft: _Draft, profile: Profile, weights: dict[str, float], out: _Verdict
) -> float:
    """What the profile's time windows, tenant count and node count say of the draft."""
    score = 0.0
    off_hours = _time_shared(profile)
    for plan in draft.plans:
        borrowers = [k for k in off_hours if k in plan.workloads]
        serving = [k for k in plan.workloads if k in SERVING_KINDS]
        presenter = draft.presenters[plan.name]
        # Handing GPUs over by time window is cheap only where no layout must change: a MIG
        # layout or an AMD partition mode changes by draining its GPUs.
        given = PARTITION_UNITS & presenter.resource_units
        cut = {unit for kind in serving for unit in given & plan.units[kind]}
        drains = bool(cut)
        for kind in borrowers:
            if serving and drains:
                out.notes.append(
                    _(
                        "%(kind)s runs %(window)s, but pool %(pool)s serves by %(units)s: "
                        "lending its GPUs would drain them twice a day",
                        kind=_(kind),
                        units=words(UNIT_WORDS, cut),
                        window=_WINDOW_WORDS[profile.window(kind)],
                        pool=plan.name,
                    )
                )
            elif serving:
                out.fits.append(
                    _(
                        "%(kind)s runs %(window)s, when the %(serving)s pool (pool %(pool)s) "
                        "stands idle: it borrows those GPUs by time window instead of a pool "
                        "of its own; the swap costs a hand-over (jobs checkpoint and yield "
                        "before serving load rises) and no drain, as the pool gives whole GPUs",
                        kind=_(kind),
                        window=_WINDOW_WORDS[profile.window(kind)],
                        serving=joined(", ", (_(k) for k in serving)),
                        pool=plan.name,
                    )
                )
            else:
                out.notes.append(
                    _(
                        "%(kind)s runs only %(window)s: pool %(pool)s stands idle the rest of "
                        "the time",
                        kind=_(kind),
                        window=_WINDOW_WORDS[profile.window(kind)],
                        pool=plan.name,
                    )
                )
        # One pool fewer to buy: the GPUs serve by day and train by night.
        if borrowers and serving and not drains:
            score += weights["cost"]
    if len(draft.plans) > 1 and profile.node_count == 1:
        score -= _FINDING_PENALTY["gap"]
        out.missing.append(
            _(
                "one GPU node cannot be split into the node pools %(pools)s",
                pools=", ".join(plan.name for plan in draft.plans),
            )
        )
    governor = draft.governor
    tenants = profile.tenant_count
    if tenants and tenants > 1 and governor is not None:
        kept = [c for c in (QUOTA, FAIR_SHARING) if c in governor.provides]
        if kept:
            out.fits.append(
                _(
                    "%(count)s tenants: %(row)s keeps %(ids)s between them",
                    count=tenants,
                    row=governor.label,
                    ids=", ".join(kept),
                )
            )
    return score
