"""What-if swaps on a decided stack: the catalog and the evaluation adapted into the what-if
engine (a selector), and Adopt, which makes the swapped stack a new draft revision (a service)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from catalog.engine.functions import comparable_functions
from catalog.engine.gpus import gpu_model_find
from catalog.engine.kubernetes import builtin_feature_entries
from catalog.engine.profile import Profile, profile_valid_fields
from catalog.engine.rows import Row
from catalog.migration_paths import migration_paths
from catalog.models import Layer, PlacementRow
from catalog.selectors import engine_rows
from evaluations.decisions.models import Decision
from evaluations.decisions.services import evaluation_decide
from evaluations.engine.swaps import MigrationPath, MigrationStep, Swap, WhatIf, what_if
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation
from evaluations.review.editing import evaluation_lock, revision_check, role_require
from evaluations.selectors import candidates_of, failure_modes_of
from evaluations.steps.services import evaluation_candidate_add
from evaluations.teams.choices import Role


@dataclass(frozen=True)
class SwapChoice:
    """A row of the decided stack and the rows of its layer that could replace it."""

    row: Row
    layer_name: str
    suggested: tuple[Row, ...]  # same layer and a common function, or a known migration target
    others: tuple[Row, ...]
    # Rows of the layer left out because they serve another vendor's GPUs than step 1's model.
    other_vendor: tuple[Row, ...] = ()
    other_vendor_count: int = 0
    # Rows past SWAP_CHOICES_UP_TO per list, not offered (a layer of a big catalog).
    unlisted: int = 0


# Each list of replacements offers this many rows at most: a layer of a 100,000-row catalog
# holds tens of thousands (issue 41 H1).
SWAP_CHOICES_UP_TO = 300


def kubernetes_features() -> dict[str, dict[str, Any]]:
    """Feature gate facts by name ({"stages": {...}, "default_on_since": "1.34", ...})."""
    return {entry["feature"]: dict(entry) for entry in builtin_feature_entries()}


def engine_migration_paths() -> list[MigrationPath]:
    return [
        MigrationPath(
            key=item["key"],
            source=item["from"],
            target=item["to"],
            title=item["title"],
            install=item["install"],
            companions=tuple(item["with"]),
            steps=tuple(
                MigrationStep(
                    text=step["text"],
                    evidence=tuple(step["evidence"]),
                    feature=step["feature"],
                    restores=tuple(step["restores"]),
                )
                for step in item["steps"]
            ),
        )
        for item in migration_paths()
    ]


def _decision(evaluation: Evaluation) -> Decision:
    decision = Decision.objects.filter(evaluation=evaluation).first()
    if decision is None or not decision.rows:
        raise InvalidInput(_("Decide a stack first: a what-if swaps a row of the decided stack."))
    return decision


def whatif_choices(evaluation: Evaluation) -> list[SwapChoice]:
    """Each decided row with its possible replacements (same layer), suggested ones first; when
    step 1 names a GPU model EcoMap's GPU facts know, only rows serving its vendor. The layer is
    read as slim tuples in one pass and only the rows offered (SWAP_CHOICES_UP_TO per list) are
    loaded, whatever the catalog's size."""
    decision = _decision(evaluation)
    decided = {row.id: row for row in engine_rows(rows=_rows_named(set(decision.rows)))}
    model = gpu_model_find((evaluation.profile or {}).get("gpu_model"))
    vendor = model.vendor if model is not None else None
    layer_names = {layer.key: layer.name for layer in Layer.objects.all()}
    targets = {(path.source, path.target) for path in engine_migration_paths()}
    rows = [decided[ref] for ref in decision.rows if ref in decided]
    lists: dict[str, dict[str, list[str]]] = {row.id: {} for row in rows}
    counts: dict[str, dict[str, int]] = {row.id: {} for row in rows}
    for layer in {row.layer for row in rows}:
        mine = [row for row in rows if row.layer == layer]
        jobs = {row.id: comparable_functions(row.layer, row.functions) for row in mine}
        layer_rows = (
            PlacementRow.objects.filter(layer__key=layer)
            .order_by("project__slug", "key")
            .values_list("project__slug", "key", "functions", "vendors")
        )
        for slug, key, functions, vendors in layer_rows.iterator(2000):
            other = f"{slug}/{key}"
            if other in decision.rows:
                continue
            serves = vendor is None or not vendors or vendor in vendors
            theirs = comparable_functions(layer, frozenset(functions or ()))
            for row in mine:
                if not serves:
                    kind = "other_vendor"
                elif jobs[row.id] & theirs or any(
                    MigrationPath("", source, target, "", "", ()).matches(row.id, other)
                    for source, target in targets
                ):
                    kind = "suggested"
                else:
                    kind = "others"
                counts[row.id][kind] = counts[row.id].get(kind, 0) + 1
                listed = lists[row.id].setdefault(kind, [])
                if len(listed) < SWAP_CHOICES_UP_TO:
                    listed.append(other)
    offered = {ref for by_kind in lists.values() for refs in by_kind.values() for ref in refs}
    loaded = {row.id: row for row in engine_rows(rows=_rows_named(offered))} if offered else {}
    choices = []
    for row in rows:
        picked = {
            kind: tuple(loaded[ref] for ref in lists[row.id].get(kind, ()) if ref in loaded)
            for kind in ("suggested", "others", "other_vendor")
        }
        offered_here = len(picked["suggested"]) + len(picked["others"])
        counted = counts[row.id].get("suggested", 0) + counts[row.id].get("others", 0)
        choices.append(
            SwapChoice(
                row,
                layer_names.get(row.layer, row.layer),
                picked["suggested"],
                picked["others"],
                picked["other_vendor"],
                other_vendor_count=counts[row.id].get("other_vendor", 0),
                unlisted=counted - offered_here,
            )
        )
    return choices


def whatif_for(evaluation: Evaluation, *, old: str, new: str, pool: str | None = None) -> WhatIf:
    """The consequences of swapping `old` for `new` (in `pool` only, when given)."""
    decision = _decision(evaluation)
    # The decided rows, the replacement and what migration paths may bring along: never the
    # whole catalog (issue 41 H1).
    paths = engine_migration_paths()
    wanted = {*decision.rows, new, *(ref for path in paths for ref in path.companions)}
    catalog = {row.id: row for row in engine_rows(rows=_rows_named(wanted))}
    rows = [catalog[ref] for ref in decision.rows if ref in catalog]
    known = {row.id for row in rows}
    pools = {
        name: [ref for ref in refs if ref in known] for name, refs in (decision.pools or {}).items()
    }
    try:
        # Fields this engine version does not know (e.g. a newer profile's) are left out.
        profile = Profile.from_dict(profile_valid_fields(evaluation.profile or {})[0])
    except ValueError:
        profile = None
    try:
        return what_if(
            rows,
            pools or None,
            Swap(old=old, new=new, pool=pool or None),
            catalog,
            profile=profile,
            features=kubernetes_features(),
            kubernetes_version=(evaluation.profile or {}).get("kubernetes_version") or None,
            paths=paths,
        )
    except ValueError as exc:
        message = str(exc.args[0]) if exc.args else str(exc)
        raise InvalidInput(message) from exc


def whatif_in_words(result: WhatIf) -> dict[str, Any]:
    """The swap, and the broken and new contracts, with rows named as the catalog names them."""
    refs = {ref for link in (*result.broken, *result.appeared) for ref in link.endpoints}
    refs |= {result.swap.old, result.swap.new, *result.added}
    labels = {row.id: row.label for row in engine_rows(rows=_rows_named(refs))}
    words: dict[str, Any] = {
        "old": labels.get(result.swap.old, result.swap.old),
        "new": labels.get(result.swap.new, result.swap.new),
        "added": [labels.get(ref, ref) for ref in result.added],
    }
    words.update(
        (
            kind,
            [
                {
                    "provider": labels.get(link.provider, link.provider),
                    "consumer": labels.get(link.consumer, link.consumer),
                    "relation": link.relation,
                    "interfaces": link.interfaces,
                    "pools": link.pools,
                    "bridged_by": link.bridged_by,
                    "bridge_feature": result.path.steps[link.bridged_by - 1].feature
                    if result.path and link.bridged_by
                    else None,
                }
                for link in links
            ],
        )
        for kind, links in (("broken", result.broken), ("appeared", result.appeared))
    )
    return words


def _rows_named(refs: set[str]):
    """The rows with these `project/key` ids, looked up per project (a few queries' worth of
    OR-ed pairs, however many refs)."""
    by_project: dict[str, set[str]] = {}
    for ref in refs:
        slug, _sep, key = ref.partition("/")
        by_project.setdefault(slug, set()).add(key)
    query = Q(pk__in=[])
    for slug, keys in by_project.items():
        query |= Q(project__slug=slug, key__in=sorted(keys))
    return PlacementRow.objects.filter(query)


@transaction.atomic
def evaluation_whatif_adopt(
    *,
    evaluation: Evaluation,
    actor,
    old: str,
    new: str,
    pool: str | None = None,
    revision: int | None = None,
) -> Evaluation:
    """Make the swapped stack the decision: a new draft revision through the normal edit path
    (an approved evaluation goes back to draft and needs approval again). The replacement and
    any rows its migration path brings join the candidates when missing. Pools keep how tenants
    share them; the risks of rows that leave the stack leave with them, and the new rows'
    failure modes join (as when a recommendation is adopted)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    evaluation = evaluation_lock(evaluation)
    revision_check(evaluation, revision, actor)
    result = whatif_for(evaluation, old=old, new=new, pool=pool)
    decision = _decision(evaluation)
    listed = {candidate.row.ref for candidate in candidates_of(evaluation)}
    for ref in (new, *result.added):
        if ref not in listed:
            evaluation_candidate_add(evaluation=evaluation, actor=actor, row=ref)
    evaluation.refresh_from_db()
    pools = {name: list(refs) for name, refs in result.pools_after.items()}
    evaluation_decide(
        evaluation=evaluation,
        actor=actor,
        rows=list(result.rows_after),
        pools=pools,
        pool_tenant_sharing={
            name: value
            for name, value in (decision.pool_tenant_sharing or {}).items()
            if name in pools
        },
        pool_node_groups={
            name: group
            for name, group in (decision.pool_node_groups or {}).items()
            if name in pools
        },
        rationale=decision.rationale,
        risks=risks_after_swap(decision.risks, before=decision.rows, after=list(result.rows_after)),
        acceptance_checks=decision.acceptance_checks,
    )
    evaluation.refresh_from_db()
    return evaluation


def risks_after_swap(risks: str, *, before: list[str], after: list[str]) -> str:
    """The decision's risks with the lines of rows that left the stack dropped (the pre-fill
    writes them `project/key: …`) and the failure modes of rows that joined appended."""
    gone = tuple(f"{ref}:" for ref in before if ref not in after)
    kept = [line for line in risks.splitlines() if not (gone and line.strip().startswith(gone))]
    joined = [
        mode
        for mode in failure_modes_of(ref for ref in after if ref not in before)
        if mode not in kept
    ]
    return "\n".join([*kept, *joined])
