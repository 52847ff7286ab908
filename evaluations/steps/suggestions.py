"""Step 3's suggestions: catalog rows whose layer, resource units and functions fit what steps 1
and 2 say, each with the reason in words, a few per layer, in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Q
from django.utils.translation import gettext as _

from catalog.engine.profile import Profile
from catalog.models import PlacementInterface, PlacementRow
from catalog.selectors import UNMAINTAINED_TAG, catalog_cache_key
from catalog.templatetags.labels import vocabulary_names
from evaluations.models import Evaluation

# A handful per layer keeps the panel a short list to pick from, not a second catalog.
SUGGESTIONS_PER_LAYER = 3

_ISOLATION_RANK = {"none": 0, "soft": 1, "hard": 2}
# What runs already outweighs any fit to the profile: replacing it is a decision of its own.
INSTALLED_WEIGHT = 10
# Data-plane functions that put an isolation level on a unit (an exporter or a labeller does not).
_ISOLATING = frozenset({"present", "partition", "isolate"})
_BATCHY = frozenset({"training", "batch"})
_LAYER_ORDER = {"data_plane": 0, "control_plane": 1, "platform": 2}


@dataclass(frozen=True)
class RowFacts:
    """What a rule needs to know about a catalog row (plain values, no ORM)."""

    id: int
    ref: str
    project: str
    component: str
    layer: str
    units: frozenset[str]
    functions: frozenset[str]
    isolation_memory: str
    signals: tuple[str, ...] = ()


@dataclass
class Suggestion:
    ref: str
    project: str
    component: str
    layer: str
    units: list[str]  # vocabulary names, in the active language
    functions: list[str]
    reason: str
    score: int


@dataclass
class SuggestionGroup:
    layer: str
    label: str
    suggestions: list[Suggestion] = field(default_factory=list)


def _listed(keys, names: dict[str, str]) -> str:
    return ", ".join(names.get(key, key) for key in sorted(keys))


def suggestion_reasons(
    row: RowFacts, profile: Profile, units: set[str], unit_names: dict[str, str]
) -> list[tuple[int, str]]:
    """Why `row` fits the profile and the chosen units, as (weight, reason) pairs; none: no fit.

    Each rule is one sentence of the method: multi-tenancy needs quota and fair sharing in the
    control plane, training and batch need gang scheduling, inference beside training needs
    preemption, demanded isolation needs a data-plane row offering it on a chosen unit, a P99
    objective or metering needs data-plane signals."""
    kinds = set(profile.workload_types)
    shared = row.units & units
    installed = profile.installed_versions.get(row.ref.partition("/")[0], False)
    # A row presenting no unit (an exporter, a cost model) fits any choice of units; what the
    # cluster runs (step 1's installed components, e.g. the governor) is always offered first.
    fits = not units or bool(shared) or row.units <= {"none"} or installed is not False
    if not fits:
        return []
    reasons_first: list[tuple[int, str]] = []
    if installed is not False:
        text = (
            _("installed in the cluster (%(version)s), as step 1 says")
            if installed
            else _("installed in the cluster, as step 1 says")
        )
        reasons_first.append((INSTALLED_WEIGHT, text % {"version": installed}))
    # Before step 2 is answered, a row is described on its own units.
    on = _listed(shared if units else row.units - {"none"}, unit_names)
    multi = profile.tenancy == "multi"
    p99 = profile.primary_objective == "p99_latency" or profile.p99_target_ms is not None
    reasons: list[tuple[int, str]] = reasons_first
    if row.layer == "data_plane":
        demanded = profile.isolation
        if (
            demanded != "none"
            and row.functions & _ISOLATING
            and (shared or not units)
            and _ISOLATION_RANK[row.isolation_memory] >= _ISOLATION_RANK[demanded]
        ):
            level = _("hard") if row.isolation_memory == "hard" else _("soft")
            text = (
                _("%(level)s memory isolation on %(units)s, as step 1 demands")
                if row.isolation_memory == demanded
                else _("%(level)s memory isolation on %(units)s (step 1 asks for at least soft)")
            )
            reasons.append((3, text % {"level": level, "units": on}))
        elif "present" in row.functions and shared:
            reasons.append((2, _("presents %(units)s, chosen in step 2") % {"units": on}))
        if "observe" in row.functions and row.signals:
            # The signal's own name (signal:dcgm/DCGM_FI_DEV_GPU_UTIL → DCGM_FI_DEV_GPU_UTIL).
            example = row.signals[0].rsplit("/", 1)[-1].removeprefix("signal:")
            count = len(row.signals)
            if p99:
                target = profile.p99_target_ms
                text = (
                    _("%(count)d signals to watch the P99 target of %(ms)s ms (e.g. %(example)s)")
                    if target
                    else _("%(count)d signals to watch P99 latency (e.g. %(example)s)")
                )
                values = {"count": count, "example": example, "ms": f"{target or 0:g}"}
                reasons.append((3, text % values))
            if multi:
                reasons.append((2, _("meters each tenant's use")))
    elif row.layer == "control_plane":
        governance = row.functions & {"quota", "fair_sharing"}
        if multi and governance:
            what = (
                _("quota and fair sharing")
                if len(governance) == 2
                else _("quota")
                if "quota" in governance
                else _("fair sharing")
            )
            text = _("%(what)s between tenants on %(units)s")
            reasons.append((3, text % {"what": what, "units": on or _("any unit")}))
        if kinds & _BATCHY and "gang" in row.functions:
            reasons.append((3, _("gang scheduling for training and batch jobs")))
        if kinds & _BATCHY and "online_inference" in kinds and "preemption" in row.functions:
            reasons.append((2, _("preemption for online inference beside training")))
    else:
        cost_first = profile.primary_objective == "cost" or "cost" in profile.priorities[:2]
        if cost_first and "cost" in row.functions:
            reasons.append((2, _("GPU cost per team and workload, as cost comes first")))
        if "online_inference" in kinds and "serving" in row.functions:
            reasons.append((1, _("serves the models of online inference")))
        if "training" in kinds and "workload_operator" in row.functions:
            reasons.append((1, _("runs distributed training jobs as one workload")))
        if "interactive" in kinds and "self_service" in row.functions:
            reasons.append((1, _("self-service GPUs for interactive development")))
    return reasons


def _sentence(reasons: list[tuple[int, str]]) -> str:
    text = "; ".join(reason for _weight, reason in sorted(reasons, key=lambda r: -r[0]))
    return text[:1].upper() + text[1:]


def rank_suggestions(
    rows: list[RowFacts],
    profile: Profile,
    units: set[str],
    *,
    unit_names: dict[str, str],
    per_layer: int = SUGGESTIONS_PER_LAYER,
) -> dict[str, list[tuple[RowFacts, int, str]]]:
    """The best `per_layer` rows of each layer with their score and reason, best first."""
    scored: dict[str, list[tuple[RowFacts, int, str]]] = defaultdict(list)
    for row in rows:
        reasons = suggestion_reasons(row, profile, units, unit_names)
        if reasons:
            score = sum(weight for weight, _reason in reasons)
            scored[row.layer].append((row, score, _sentence(reasons)))
    for layer, entries in scored.items():
        # More of the chosen units seen is the better fit; the name keeps the order stable.
        entries.sort(key=lambda e: (-e[1], -len(e[0].units & units), e[0].project, e[0].ref))
        scored[layer] = entries[:per_layer]
    return scored


# The catalog's side of the suggestions is the same for every evaluation until the catalog
# changes: read once per revision, not on every view of step 3.
CATALOG_FACTS_SECONDS = 600


def _catalog_candidates(exclude: set[int], revision: int | None = None) -> list[RowFacts]:
    """Maintained catalog rows not yet chosen (the catalog's rows cached per revision)."""
    key = catalog_cache_key("suggestions:v1", revision=revision)
    facts = cache.get(key)
    if facts is None:
        facts = _maintained_rows()
        cache.set(key, facts, CATALOG_FACTS_SECONDS)
    return [row for row in facts if row.id not in exclude]


def _maintained_rows() -> list[RowFacts]:
    """Every maintained catalog row as suggestion facts, in three queries."""
    rows = PlacementRow.objects.exclude(project__tags__slug=UNMAINTAINED_TAG).values_list(
        "id",
        "project__slug",
        "project__name",
        "key",
        "component",
        "layer__key",
        "isolation_memory",
        "functions",
    )
    base = list(rows)
    ids = [row[0] for row in base]
    units: dict[int, set[str]] = defaultdict(set)
    for row_id, key in PlacementRow.resource_units.through.objects.filter(
        placementrow_id__in=ids
    ).values_list("placementrow_id", "resourceunit__key"):
        units[row_id].add(key)
    signals: dict[int, set[str]] = defaultdict(set)
    contracts = PlacementInterface.objects.filter(
        Q(relation="signals") | Q(relation="provides"),
        row_id__in=ids,
        interface__identifier__startswith="signal:",
    )
    for row_id, identifier in contracts.values_list("row_id", "interface__identifier"):
        signals[row_id].add(identifier)
    return [
        RowFacts(
            id=pk,
            ref=f"{slug}/{key}",
            project=name,
            component=component or key,
            layer=layer,
            units=frozenset(units[pk]),
            functions=frozenset(functions or ()),
            isolation_memory=memory,
            signals=tuple(sorted(signals[pk])),
        )
        for pk, slug, name, key, component, layer, memory, functions in base
    ]


def evaluation_unit_keys(evaluation: Evaluation) -> set[str]:
    return set(evaluation.units.values_list("unit__key", flat=True))


def candidate_suggestions(
    *,
    evaluation: Evaluation,
    per_layer: int = SUGGESTIONS_PER_LAYER,
    units: set[str] | None = None,
    chosen: set[int] | None = None,
    revision: int | None = None,
) -> list[SuggestionGroup]:
    """Rows to add in step 3, grouped by layer (the map's order), excluding chosen ones. A caller
    that has read the evaluation's unit keys, chosen row ids or the catalog revision passes them
    (fewer queries).
    Vocabulary names come from the labels' cache."""
    try:
        profile = evaluation.engine_profile()
    except ValueError:
        profile = Profile()
    if units is None:
        units = evaluation_unit_keys(evaluation)
    if chosen is None:
        chosen = set(evaluation.candidates.values_list("row_id", flat=True))
    unit_names = vocabulary_names("unit")
    rows = _catalog_candidates(chosen, revision)
    ranked = rank_suggestions(rows, profile, units, unit_names=unit_names, per_layer=per_layer)
    if not ranked:
        return []
    function_names = vocabulary_names("function")
    groups = []
    # Bottom up, as a stack is built: the resource, who gets it, how it is delivered.
    layers = sorted(
        vocabulary_names("layer").items(), key=lambda item: _LAYER_ORDER.get(item[0], 99)
    )
    for layer, label in layers:
        entries = ranked.get(layer)
        if not entries:
            continue
        group = SuggestionGroup(layer=layer, label=label)
        for row, score, reason in entries:
            group.suggestions.append(
                Suggestion(
                    ref=row.ref,
                    project=row.project,
                    component=row.component,
                    layer=row.layer,
                    units=[unit_names.get(key, key) for key in sorted(row.units)],
                    functions=[function_names.get(key, key) for key in sorted(row.functions)],
                    reason=reason,
                    score=score,
                )
            )
        groups.append(group)
    return groups
