"""The decision's form: the stack as the API takes it — node pools (name, rows, how tenants share
them) and the rows that run cluster-wide — with rationale, risks and acceptance checks. Input
shape only: the rules are evaluation_decide's."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.decisions.services import MAX_POOL_NAME, MAX_POOLS

# The select's words for the API's `pool_tenant_sharing` values (catalog.engine.fit
# .TENANT_SHARING); "" leaves a pool unnamed there: it serves every tenant.
TENANT_SHARING_CHOICES = [
    ("", _("not said: serves every tenant")),
    ("none", _("whole devices")),
    ("within_tenant", _("one tenant per pool")),
    ("across_tenants", _("shared between tenants")),
]


class PoolForm(forms.Form):
    """One node pool: its name, the rows that run in it, how tenants share it."""

    name = forms.CharField(label=_("Pool name"), required=False, max_length=MAX_POOL_NAME)
    tenant_sharing = forms.ChoiceField(
        label=_("Tenant sharing"), choices=TENANT_SHARING_CHOICES, required=False
    )

    def __init__(
        self, *args: Any, refs: list[str], groups: list[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if groups:
            # Step 1 names node groups (profile v2): where the pool runs.
            self.fields["node_group"] = forms.ChoiceField(
                label=_("Node group"),
                choices=[("", _("not said"))] + [(name, name) for name in groups],
                required=False,
            )
        self.fields["rows"] = forms.MultipleChoiceField(
            label=_("Rows in this pool"),
            choices=[(ref, ref) for ref in refs],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )

    @property
    def number(self) -> str:
        """The pool's number as the page shows it (1, 2, …)."""
        index = (self.prefix or "").rpartition("-")[2]
        return str(int(index) + 1) if index.isdigit() else ""

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.cleaned_data.get("DELETE"):
            return data
        if data.get("rows") and not data.get("name"):
            self.add_error("name", _("Name the pool its ticked rows run in."))
        elif data.get("name") and not data.get("rows"):
            self.add_error("name", _("Tick the rows that run in this pool, or remove it."))
        return data


class BasePoolFormSet(forms.BaseFormSet):
    def clean(self) -> None:
        seen: set[str] = set()
        for form in self.forms:
            if self._should_delete_form(form) or not hasattr(form, "cleaned_data"):
                continue
            name = form.cleaned_data.get("name")
            if name and name in seen:
                form.add_error("name", _("Another pool has this name."))
            seen.add(name)


PoolFormSet = forms.formset_factory(
    PoolForm,
    formset=BasePoolFormSet,
    extra=1,  # a blank pool to fill in: adding one needs no script
    can_delete=True,
    max_num=MAX_POOLS,
    absolute_max=MAX_POOLS + 1,
    validate_max=True,
)


class DecisionForm(forms.Form):
    """The chosen stack as a grid of rows × where each runs (cluster-wide, or in pools); the
    pools' names and tenant sharing in a formset beside it. A row ticked nowhere is not in the
    stack."""

    rationale = forms.CharField(
        label=_("Rationale"), required=False, max_length=10000, widget=forms.Textarea({"rows": 4})
    )
    risks = forms.CharField(
        label=_("Risks and failure modes to watch"),
        required=False,
        max_length=20000,
        widget=forms.Textarea({"rows": 6}),
    )
    acceptance_checks = forms.CharField(
        label=_("Acceptance checks"),
        required=False,
        max_length=10000,
        widget=forms.Textarea({"rows": 4}),
    )

    def __init__(
        self,
        data=None,
        *args: Any,
        refs: list[str],
        pools: dict[str, list[str]] | None = None,
        sharing: dict[str, str] | None = None,
        node_groups: dict[str, str] | None = None,
        groups: list[str] | None = None,
        more_pools: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, *args, **kwargs)
        self.refs = refs
        self.fields["cluster_wide"] = forms.MultipleChoiceField(
            label=_("Cluster-wide"),
            choices=[(ref, ref) for ref in refs],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
        sharing = sharing or {}
        node_groups = node_groups or {}
        initial = [
            {
                "name": name,
                "rows": list(members),
                "tenant_sharing": sharing.get(name, ""),
                "node_group": node_groups.get(name, ""),
            }
            for name, members in (pools or {}).items()
        ]
        if data is not None and more_pools:
            # "Add a pool" without a script: the same input, one more blank pool to fill in.
            data = data.copy()
            key = "pool-TOTAL_FORMS"
            total = int(data.get(key, "0")) if str(data.get(key, "0")).isdigit() else 0
            data[key] = str(min(total + more_pools, MAX_POOLS))
        self.pools = PoolFormSet(
            data, prefix="pool", initial=initial, form_kwargs={"refs": refs, "groups": groups}
        )

    @staticmethod
    def initial_from(decision) -> dict[str, Any]:
        if decision is None:
            return {}
        pooled = {ref for members in decision.pools.values() for ref in members}
        return {
            "cluster_wide": [ref for ref in decision.rows if ref not in pooled],
            "rationale": decision.rationale,
            "risks": decision.risks,
            "acceptance_checks": decision.acceptance_checks,
        }

    def is_valid(self) -> bool:
        pools_valid = self.pools.is_valid()
        return super().is_valid() and pools_valid

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.pools.is_valid():
            return data
        cluster_wide = set(data.get("cluster_wide") or [])
        for pool in self._kept_pools():
            both = [ref for ref in pool["rows"] if ref in cluster_wide]
            if both:
                self.add_error(
                    "cluster_wide",
                    _(
                        "%(rows)s: ticked cluster-wide and in pool %(pool)s. A cluster-wide row "
                        "runs in every pool: untick one of the two."
                    )
                    % {"rows": ", ".join(both), "pool": pool["name"]},
                )
        return data

    def _kept_pools(self) -> list[dict[str, Any]]:
        """The pools as posted, removed and blank ones left out; each pool's rows in the order
        it had, new rows after them in the order shown."""
        kept = []
        for form in self.pools.forms:
            data = form.cleaned_data
            if self.pools._should_delete_form(form) or not (data.get("name") and data.get("rows")):
                continue
            kept.append({**data, "rows": _in_order(data["rows"], form.initial.get("rows", []))})
        return kept

    def grid(self) -> list[dict[str, Any]]:
        """For each row: its cluster-wide box and its box in each pool, as the page shows them
        (ticked as posted, or as saved)."""

        def ticked(bound) -> set[str]:
            return {str(value) for value in (bound.value() or [])}

        cluster_wide = ticked(self["cluster_wide"])
        pools = [(form, ticked(form["rows"])) for form in self.pools.forms]
        return [
            {
                "ref": ref,
                "cluster_wide": {
                    "name": self["cluster_wide"].html_name,
                    "id": f"cw-{index}",
                    "checked": ref in cluster_wide,
                },
                "pools": [
                    {
                        "name": form["rows"].html_name,
                        "id": f"{form.prefix}-row-{index}",
                        "pool": form["name"].value() or "",
                        "number": number,
                        "checked": ref in members,
                    }
                    for number, (form, members) in enumerate(pools, start=1)
                ],
            }
            for index, ref in enumerate(self.refs)
        ]

    def to_data(self) -> dict[str, Any]:
        """The service's arguments: the stack is every row ticked somewhere, in the order of the
        rows shown."""
        pools = {pool["name"]: list(pool["rows"]) for pool in self._kept_pools()}
        in_stack = set(self.cleaned_data.get("cluster_wide") or []).union(*pools.values())
        return {
            "rows": [ref for ref in self.refs if ref in in_stack],
            "pools": pools,
            "pool_tenant_sharing": {
                pool["name"]: pool["tenant_sharing"]
                for pool in self._kept_pools()
                if pool["tenant_sharing"]
            },
            "pool_node_groups": {
                pool["name"]: pool["node_group"]
                for pool in self._kept_pools()
                if pool.get("node_group")
            },
            "rationale": self.cleaned_data.get("rationale") or "",
            "risks": self.cleaned_data.get("risks") or "",
            "acceptance_checks": self.cleaned_data.get("acceptance_checks") or "",
        }


def _in_order(chosen: list[str], order: list[str]) -> list[str]:
    """`chosen` in the order `order` gives, anything it does not name after, as chosen."""
    position = {ref: index for index, ref in enumerate(order)}
    return sorted(chosen, key=lambda ref: position.get(ref, len(order)))
