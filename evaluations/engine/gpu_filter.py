"""What the node groups' GPU models let into a ranking's search, and what they keep out and
why: rows of other vendors, of other devices of a model's vendor (the Intel GPU plugin on Gaudi
nodes), presenting partitions no model has, and every vendor-specific row for a model the GPU
facts do not know. Said in one text per reason for the page, and per row for the API."""

from __future__ import annotations

from collections.abc import Sequence

from catalog.engine.fit import (
    lacks_partitions,
    only_partitions,
    partition_words,
    presents_other_devices,
)
from catalog.engine.fleet import NodeGroup
from catalog.engine.gpus import GpuModel
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.text import Text, _

VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "huawei": "Huawei"}


def _rows_named(found: dict[str, list[str]]) -> str:
    return "; ".join(f"{p} ({', '.join(keys)})" for p, keys in sorted(found.items()))


class _Filtered:
    """What the node groups' GPU models let into the search, and what they kept out and why."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.left_out: list[str] = []
        self.left_out_rows: list[dict[str, str]] = []
        self.unknown_models: list[str] = []

    def drop(self, found: dict[str, list[str]], row: Row, reason: Text) -> None:
        found.setdefault(row.project, []).append(row.key)
        self.left_out_rows.append({"row": row.id, "reason": reason})


def _no_partitions_for(row: Row, models: Sequence[GpuModel]) -> GpuModel | None:
    """A model the row could serve, when none of those has the partitions the row presents only
    (MIG rows for an L4 fleet), else None."""
    if not only_partitions(row):
        return None
    mine = [model for model in models if row.serves(model.vendor)]
    lacking = [model for model in mine if lacks_partitions(row, model)]
    return lacking[0] if mine and len(lacking) == len(mine) else None


def _other_devices(row: Row, models: Sequence[GpuModel]) -> bool:
    """Whether every model of the row's vendor is presented otherwise than the row presents."""
    mine = [model for model in models if model.vendor in row.vendors]
    return bool(mine) and all(presents_other_devices(row, model) for model in mine)


def _gpu_filter(rows: Sequence[Row], profile: Profile) -> _Filtered:
    """The rows a stack for the profile's node groups may use, and what was left out with each
    model's fact. A row is kept when some group can use it; which group may is each pool's own
    check (drafting._PoolPlan.group_allows), said here per group. A model the GPU facts do not
    know keeps every vendor-specific row out of its group, and out of the search when no known
    model is beside it: nothing is guessed."""
    out = _Filtered()
    groups = profile.groups
    models = list({g.model.key: g.model for g in groups if g.model is not None}.values())
    out.unknown_models = list(
        dict.fromkeys(g.gpu_model for g in groups if g.gpu_model and g.model is None)
    )
    vendors = {model.vendor for model in models}
    partitioned = {model.vendor for model in models if model.has_partitions}
    named = ", ".join(model.name for model in models)
    wrong_vendor: dict[str, list[str]] = {}
    other_devices: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    no_partitions: dict[str, list[str]] = {}
    why_vendor = _(
        "serves other vendors' GPUs than %(models)s (GPU facts)",
        models=named or ", ".join(out.unknown_models),
    )
    why_unknown = _(
        "vendor-specific, and %(models)s is not in EcoMap's GPU facts",
        models=", ".join(out.unknown_models),
    )
    for row in rows:
        if row.vendors and not models and out.unknown_models:
            out.drop(unknown, row, why_unknown)
        elif row.vendors and models and not row.vendors & vendors:
            out.drop(wrong_vendor, row, why_vendor)
        elif _other_devices(row, models):
            out.drop(
                other_devices,
                row,
                _("presents other devices than %(models)s is presented as (GPU facts)",
                  models=named),
            )  # fmt: skip
        elif (lacking := _no_partitions_for(row, models)) is not None:
            out.drop(
                no_partitions,
                row,
                _("%(model)s has no %(feature)s (GPU facts)", model=lacking.name,
                  feature=partition_words(lacking)),
            )  # fmt: skip
        else:
            out.rows.append(row)
    if unknown:
        out.left_out.append(
            _(
                "Left out because %(models)s is not in EcoMap's GPU facts, so no vendor-specific "
                "row is proposed for it (add the model to the facts, or name a known one): "
                "%(rows)s",
                models=", ".join(out.unknown_models),
                rows=_rows_named(unknown),
            )
        )
    if wrong_vendor:
        out.left_out.append(
            _(
                "Left out because %(model)s is made by %(vendor)s (GPU facts): rows serving "
                "other vendors' GPUs: %(rows)s",
                model=named,
                vendor=", ".join(sorted({VENDOR_NAMES.get(m.vendor, m.vendor) for m in models})),
                rows=_rows_named(wrong_vendor),
            )
        )
    if other_devices:
        model = next(m for m in models if m.presented_as)
        out.left_out.append(
            _(
                "Left out because %(model)s is presented as %(interfaces)s (GPU facts): rows "
                "presenting other %(vendor)s devices: %(rows)s",
                model=model.name,
                interfaces=", ".join(model.presented_as),
                vendor=VENDOR_NAMES.get(model.vendor, model.vendor),
                rows=_rows_named(other_devices),
            )
        )
    if no_partitions:
        model = next(m for m in models if m.vendor not in partitioned)
        out.left_out.append(
            _(
                "Left out because %(model)s has no %(feature)s (GPU facts: %(sharing)s): rows "
                "presenting hardware partitions (%(feature)s): %(rows)s",
                model=model.name,
                feature=partition_words(model),
                sharing=", ".join(sorted(model.sharing)) or _("no sharing feature"),
                rows=_rows_named(no_partitions),
            )
        )
    if len(groups) > 1:
        _per_group(out, groups)
    return out


def _per_group(out: _Filtered, groups: Sequence[NodeGroup]) -> None:
    """What one group of several cannot use, though another can: said per group."""
    for group in groups:
        model = group.model
        if group.gpu_model and model is None:
            vendor_rows = sorted({r.project for r in out.rows if r.vendors})
            if vendor_rows:
                out.left_out.append(
                    _(
                        "Node group %(group)s: %(model)s is not in EcoMap's GPU facts, so only "
                        "vendor-neutral rows present its GPUs (not %(rows)s)",
                        group=group.name,
                        model=group.gpu_model,
                        rows=", ".join(vendor_rows),
                    )
                )
            continue
        if model is None:
            continue
        partitions = sorted(
            {r.project for r in out.rows if r.serves(model.vendor) and lacks_partitions(r, model)}
        )
        if partitions:
            out.left_out.append(
                _(
                    "Node group %(group)s: %(model)s has no %(feature)s (GPU facts), so rows "
                    "presenting hardware partitions are not used there: %(rows)s",
                    group=group.name,
                    model=model.name,
                    feature=partition_words(model),
                    rows=", ".join(partitions),
                )
            )
