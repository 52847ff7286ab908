"""The decision's form: the stack, node pools, rationale, risks and acceptance checks."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _


class DecisionForm(forms.Form):
    """The chosen stack: a checkbox per row and the pool it runs in (empty: cluster-wide)."""

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

    per_tenant_pools = forms.CharField(
        label=_("Pools run once per tenant"),
        help_text=_(
            "Pool names, separated by commas, whose GPUs are shared only within one tenant "
            "(one such pool per tenant). Any other pool serves every tenant."
        ),
        required=False,
        max_length=1000,
    )

    def __init__(
        self, *args: Any, refs: list[str], sharing: dict[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.refs = refs
        self.sharing = dict(sharing or {})
        self.fields["rows"] = forms.MultipleChoiceField(
            label=_("Stack"),
            choices=[(ref, ref) for ref in refs],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
        for index, ref in enumerate(refs):
            # The table's column head is the visible label; the input still needs a name of its
            # own naming its row (WCAG 4.1.2).
            self.fields[f"pool_{index}"] = forms.SlugField(
                label=_("Node pool"),
                required=False,
                max_length=40,
                widget=forms.TextInput(
                    attrs={"aria-label": _("Node pool of %(row)s") % {"row": ref}}
                ),
            )

    @staticmethod
    def initial_from(decision, refs: list[str]) -> dict[str, Any]:
        if decision is None:
            return {}
        pool_of = {ref: name for name, members in decision.pools.items() for ref in members}
        initial = {
            "rows": decision.rows,
            "rationale": decision.rationale,
            "risks": decision.risks,
            "acceptance_checks": decision.acceptance_checks,
            "per_tenant_pools": ", ".join(
                name
                for name, sharing in (decision.pool_tenant_sharing or {}).items()
                if sharing == "within_tenant"
            ),
        }
        for index, ref in enumerate(refs):
            initial[f"pool_{index}"] = pool_of.get(ref, "")
        return initial

    def to_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        chosen = list(data.get("rows") or [])
        pools: dict[str, list[str]] = {}
        for index, ref in enumerate(self.refs):
            pool = data.get(f"pool_{index}")
            if ref in chosen and pool:
                pools.setdefault(pool, []).append(ref)
        per_tenant = {
            name.strip() for name in (data.get("per_tenant_pools") or "").split(",") if name.strip()
        }
        # Pools not listed keep what was said of them (whole devices, shared across tenants).
        sharing = {
            name: value
            for name, value in self.sharing.items()
            if name in pools and value != "within_tenant"
        }
        sharing |= dict.fromkeys(per_tenant, "within_tenant")
        return {
            "rows": chosen,
            "pools": pools,
            "pool_tenant_sharing": sharing,
            "rationale": data.get("rationale") or "",
            "risks": data.get("risks") or "",
            "acceptance_checks": data.get("acceptance_checks") or "",
        }
