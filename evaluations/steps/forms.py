"""The four placement steps' forms: they shape input into the dicts the step services take; the
rules live there. The profile's choices and their labels are shared with the diffs, the ADR and
the report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.engine.gpus import gpu_model_choices
from catalog.engine.profile import (
    GPU_MEMORY_MAX_GB,
    GPU_MODEL_MAX,
    GPUS_PER_NODE_MAX,
    NODE_COUNT_MAX,
    PRIORITIES,
    TENANT_COUNT_MAX,
    WORKLOAD_TYPES,
)
from catalog.engine.text import render as render_text
from catalog.engine.versions import (
    PINNED_MAX,
    profile_component_versions,
    profile_kubernetes_version,
)
from catalog.engine.workload_mix import (
    MIX_MAX_ENTRIES,
    MixError,
    mix_as_text,
    mix_from_text,
)
from evaluations.models import Candidate

# One list of workload words for step 1 (fleet_forms holds it: it cannot import this module).
from evaluations.steps.fleet_forms import FLEET_FIELDS, WORKLOAD_CHOICES, FleetForms

OBJECTIVE_CHOICES = [
    ("throughput", _("Throughput first")),
    ("p99_latency", _("P99 latency first")),
    ("cost", _("Cost first")),
]

LEVEL_CHOICES = [("low", _("low")), ("medium", _("medium")), ("high", _("high"))]

ISOLATION_CHOICES = [
    ("hard", _("hard (partition enforced by hardware or driver)")),
    ("soft", _("soft (enforced in software)")),
    ("none", _("none (shared)")),
]

FAILURE_CHOICES = [
    ("degrade", _("a degradation")),
    ("incident", _("an incident")),
]

TENANCY_CHOICES = [("single", _("single tenant")), ("multi", _("multi-tenant"))]

# Whether one GPU may serve several tenants at once (catalog.engine.profile.CROSS_TENANT_SHARING).
CROSS_TENANT_CHOICES = [
    ("never", _("never: a GPU serves one tenant at a time")),
    ("hard_partitions", _("only through hard partitions (MIG: memory, compute and fault)")),
    ("allowed", _("allowed: tenants may share a GPU")),
]

PRIORITY_LABELS = {
    "isolation": _("isolation strength"),
    "cost": _("cost target"),
    "observability": _("observability"),
    "compatibility": _("compatibility"),
}

TIME_WINDOW_CHOICES = [
    ("always", _("always")),
    ("business_hours", _("business hours")),
    ("night", _("at night")),
    ("weekend", _("at the weekend")),
]


# The per-workload isolation selects say the level alone; the choice's parenthesis is the
# isolation requirement's own explanation, given once beside it.
ISOLATION_LEVEL_WORDS = {"hard": _("hard"), "soft": _("soft"), "none": _("none")}


PRIORITY_CHOICES = [("", "—")] + [(key, PRIORITY_LABELS[key]) for key in PRIORITIES]

BLANK = [("", "—")]


class ProfileForm(forms.Form):
    """Step 1. Every field is optional so the page can save as it is filled; what is still
    missing is reported, and a field that is not valid is marked without holding back the
    others (`to_data` leaves it out, `unsaved` says why)."""

    workload_types = forms.MultipleChoiceField(
        label=_("Workload types"),
        choices=WORKLOAD_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    primary_objective = forms.ChoiceField(
        label=_("Primary objective"), choices=BLANK + OBJECTIVE_CHOICES, required=False
    )
    p99_target_ms = forms.FloatField(
        label=_("P99 target (ms)"), required=False, min_value=0.001, max_value=3_600_000
    )
    jitter_tolerance = forms.ChoiceField(
        label=_("Jitter tolerance"), choices=BLANK + LEVEL_CHOICES, required=False
    )
    isolation = forms.ChoiceField(
        label=_("Isolation requirement"), choices=BLANK + ISOLATION_CHOICES, required=False
    )
    failure_semantics = forms.ChoiceField(
        label=_("A failure is"), choices=BLANK + FAILURE_CHOICES, required=False
    )
    tenancy = forms.ChoiceField(label=_("Tenancy"), choices=BLANK + TENANCY_CHOICES, required=False)
    cross_tenant_sharing = forms.ChoiceField(
        label=_("GPUs shared between tenants"),
        # Empty: derived from tenancy and isolation (Profile.tenant_rule); the page says to what.
        choices=[("", _("— derived from tenancy and isolation"))] + CROSS_TENANT_CHOICES,
        required=False,
    )
    tenant_count = forms.IntegerField(
        label=_("Number of tenants"),
        required=False,
        min_value=1,
        max_value=TENANT_COUNT_MAX,
        help_text=_(
            "Teams or customers sharing the GPUs. More than one needs quotas and fair sharing "
            "between them, even if tenancy is left open."
        ),
    )
    gpu_model = forms.CharField(
        label=_("GPU model"),
        required=False,
        max_length=GPU_MODEL_MAX,
        # A model of EcoMap's GPU facts from the list (the page's <datalist>), or any text: an
        # unknown model is kept and the page says its MIG and vendor are not checked.
        widget=forms.TextInput(
            {
                "placeholder": _("e.g. A100 80GB"),
                "list": "gpu-models",
                "autocomplete": "off",
                "spellcheck": "false",
            }
        ),
        help_text=_(
            "The GPUs these workloads share, and how much memory each has: memory-slicing "
            "units (MIG profiles, HAMi's GPU memory) are sized from it."
        ),
    )
    gpu_memory_gb = forms.IntegerField(
        label=_("Memory per GPU (GB)"),
        required=False,
        min_value=1,
        max_value=GPU_MEMORY_MAX_GB,
        # The placeholder is the known model's memory (step 1's notes), updated as it is saved.
        widget=forms.NumberInput({"data-note-placeholder": ""}),
    )
    node_count = forms.IntegerField(
        label=_("GPU nodes"),
        required=False,
        min_value=1,
        max_value=NODE_COUNT_MAX,
        help_text=_("Split node pools need at least two GPU nodes."),
    )
    gpus_per_node = forms.IntegerField(
        label=_("GPUs per node"),
        required=False,
        min_value=1,
        max_value=GPUS_PER_NODE_MAX,
        widget=forms.NumberInput({"placeholder": "8"}),
        help_text=_("Capacity sizing assumes 8 (an HGX or DGX board) when left empty."),
    )
    kubernetes_version = forms.CharField(
        label=_("Kubernetes version"),
        required=False,
        max_length=40,
        widget=forms.TextInput({"placeholder": _("e.g. 1.34"), "spellcheck": "false"}),
        help_text=_(
            "The cluster's Kubernetes release. DRA features are checked against it: one that is "
            "still off by default there is a gap, named with the release that turns it on."
        ),
    )
    component_versions = forms.CharField(
        label=_("Pinned component versions"),
        required=False,
        max_length=PINNED_MAX * 150,
        widget=forms.Textarea(
            {"rows": 3, "placeholder": _("one per line, e.g. kueue 0.19.3"), "spellcheck": "false"}
        ),
        help_text=_(
            "Project and version, one per line, for the components whose version is fixed. A "
            "version outside what a catalog row was verified for is a warning."
        ),
    )
    workload_mix = forms.CharField(
        label=_("Workload mix"),
        required=False,
        max_length=MIX_MAX_ENTRIES * 100,
        widget=forms.Textarea(
            {
                "rows": 4,
                "spellcheck": "false",
                "placeholder": _(
                    "tenant, workload, tasks, GPUs per task, milli-GPU[, GPU memory GB]\n"
                    "1, training, 40, 8, 1000\n2, online_inference, 300, 1, 250, 20\n"
                    "*, batch, 100, 1, 500"
                ),
            }
        ),
        help_text=_(
            # xgettext:no-python-format
            "Optional, one line per kind of task: the tenant's number (* for every tenant), the "
            "workload type, how many tasks, GPUs per task and, for a fraction of one GPU, "
            "thousandths of it. The counts are proportions: capacity sizing replays the mix "
            "until the work asked reaches 130 % of the GPUs. Left empty, sizing uses a default "
            "per workload type taken from Alibaba's GPU trace."
        ),
    )
    priority_1 = forms.ChoiceField(label=_("1st"), choices=PRIORITY_CHOICES, required=False)
    priority_2 = forms.ChoiceField(label=_("2nd"), choices=PRIORITY_CHOICES, required=False)
    priority_3 = forms.ChoiceField(label=_("3rd"), choices=PRIORITY_CHOICES, required=False)
    priority_4 = forms.ChoiceField(label=_("4th"), choices=PRIORITY_CHOICES, required=False)

    PRIORITY_FIELDS = ("priority_1", "priority_2", "priority_3", "priority_4")
    # One "when does it run" select per workload type; only the ticked types' count.
    WINDOW_FIELDS = {f"window_{kind}": kind for kind in WORKLOAD_TYPES}
    # One isolation select per workload type, overriding the isolation requirement for it.
    ISOLATION_FIELDS = {f"isolation_{kind}": kind for kind in WORKLOAD_TYPES}
    VERSION_FIELDS = ("kubernetes_version", "component_versions")
    # Form fields that are profile fields of the same name: an invalid one keeps its stored answer.
    PLAIN_FIELDS = (
        "workload_types",
        "primary_objective",
        "p99_target_ms",
        "jitter_tolerance",
        "isolation",
        "failure_semantics",
        "tenancy",
        "tenant_count",
        "cross_tenant_sharing",
        "gpu_model",
        "gpu_memory_gb",
        "node_count",
        "gpus_per_node",
        "workload_mix",
        "kubernetes_version",
        "component_versions",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Node groups, named tenants and what is installed: rows of their own (fleet_forms).
        self.fleet = FleetForms(self.data if self.is_bound else None, self.initial)
        labels = dict(WORKLOAD_CHOICES)
        for name, kind in self.WINDOW_FIELDS.items():
            self.fields[name] = forms.ChoiceField(
                label=labels[kind], choices=BLANK + TIME_WINDOW_CHOICES, required=False
            )
            self.fields[name].widget.attrs["data-window-for"] = kind
        for name, kind in self.ISOLATION_FIELDS.items():
            self.fields[name] = forms.ChoiceField(
                label=labels[kind],
                choices=[("", _("— as above"))] + list(ISOLATION_LEVEL_WORDS.items()),
                required=False,
            )
            self.fields[name].widget.attrs["data-window-for"] = kind

    @classmethod
    def initial_from(cls, profile: dict[str, Any]) -> dict[str, Any]:
        initial = {key: value for key, value in profile.items() if value is not None}
        target = initial.get("p99_target_ms")
        if isinstance(target, float) and target.is_integer():
            initial["p99_target_ms"] = int(target)  # 250, not 250.0
        for name, value in zip(cls.PRIORITY_FIELDS, profile.get("priorities") or [], strict=False):
            initial[name] = value
        for kind, window in (profile.get("time_windows") or {}).items():
            initial[f"window_{kind}"] = window
        for kind, level in (profile.get("workload_isolation") or {}).items():
            initial[f"isolation_{kind}"] = level
        initial["workload_mix"] = mix_as_text(profile.get("workload_mix") or [])
        pinned = profile.get("component_versions") or {}
        initial["component_versions"] = "\n".join(f"{slug} {v}" for slug, v in pinned.items())
        return initial

    def full_clean(self) -> None:
        super().full_clean()
        if self.is_bound:
            self.fleet.validate()

    @property
    def single_cluster_shown(self) -> bool:
        """The single GPU model, node count and GPUs per node, while no node group is listed:
        with groups, the cluster is described per group, once."""
        return not self.fleet.node_groups.forms

    @property
    def tenant_count_shown(self) -> bool:
        """The number of tenants, while no tenant is named (named tenants are counted)."""
        return not self.fleet.tenants.forms

    @property
    def any_errors(self) -> bool:
        return bool(self.errors) or self.fleet.has_errors()

    def errors_by_name(self) -> dict[str, Any]:
        """The form's errors and its rows', under the names the page marks them by."""
        return {**self.errors, **self.fleet.errors_by_name()}

    def add_profile_error(self, name: str, message: Any) -> None:
        """An error the profile's rules found (an engine sentence, translatable), shown under
        its field or on the row it names."""
        if name in FLEET_FIELDS:
            self.fleet.add_engine_error(name, message)
            return
        text = render_text(message, gettext)
        # The page shows it under the field: the field name it starts with is said already.
        text = re.sub(r"^[a-z_]+\s*[:：]\s*", "", text, count=1) if name in self.fields else text
        self.add_error(name if name in self.fields else None, text)

    def window_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.WINDOW_FIELDS]

    def isolation_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.ISOLATION_FIELDS]

    @staticmethod
    def gpu_model_names() -> list[str]:
        """The models of EcoMap's GPU facts, for the GPU model's list of suggestions."""
        return [name for _key, name in gpu_model_choices()]

    def version_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.VERSION_FIELDS]

    def clean_kubernetes_version(self) -> str | None:
        try:
            return profile_kubernetes_version(self.cleaned_data.get("kubernetes_version"))
        except ValueError:
            raise forms.ValidationError(
                _("Not a Kubernetes version: write it as 1.34 or v1.34.2.")
            ) from None

    def clean_component_versions(self) -> dict[str, str]:
        """Lines of "project version" ("kueue 0.19.3", "kueue=0.19.3" or "kueue: 0.19.3")."""
        pinned: dict[str, str] = {}
        for number, line in enumerate(self.cleaned_data.get("component_versions", "").splitlines()):
            words = line.replace("=", " ").replace(":", " ").split()
            if not words:
                continue
            if len(words) != 2:
                raise forms.ValidationError(
                    _("Line %(number)s: write a project and its version, e.g. kueue 0.19.3."),
                    params={"number": number + 1},
                )
            pinned[words[0].lower()] = words[1]
        try:
            return dict(profile_component_versions(pinned))
        except ValueError:
            raise forms.ValidationError(
                _(
                    "Write one project per line, by its catalog name (e.g. kueue), and a version "
                    "such as 0.19.3."
                )
            ) from None

    def clean_workload_mix(self) -> list[dict[str, Any]]:
        """Lines of `tenant, workload, tasks, gpus, gpu_milli[, memory_gb[, gpu_types]]`; the
        tenant numbers are checked against the tenant count when the profile is saved."""
        try:
            entries = mix_from_text(self.cleaned_data.get("workload_mix") or "")
        except MixError as exc:
            message = render_text(exc.args[0], gettext)
            raise forms.ValidationError(message.split(": ", 1)[-1]) from None
        return [entry.to_dict() for entry in entries]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        # A rank repeating an earlier one is the marked control; the ranks before it still count.
        ranked: list[str] = []
        for name in self.PRIORITY_FIELDS:
            value = data.get(name)
            if value and value in ranked:
                self.add_error(name, _("Each priority can be ranked once."))
            elif value:
                ranked.append(value)
        data["priorities"] = ranked
        return data

    def unsaved(self) -> dict[str, list[str]]:
        """Errors of the fields that keep their stored answer (by profile field name)."""
        own = {name: list(self.errors[name]) for name in self.PLAIN_FIELDS if name in self.errors}
        return own | self.fleet.invalid()

    def to_data(self) -> dict[str, Any]:
        """The profile the form says, without the fields that are not valid."""
        data = self.cleaned_data
        target = data.get("p99_target_ms")
        kinds = list(data.get("workload_types") or [])
        profile = {
            "workload_types": kinds,
            "primary_objective": data.get("primary_objective") or None,
            # Whole milliseconds stay integers in the stored profile.
            "p99_target_ms": int(target) if target and float(target).is_integer() else target,
            "jitter_tolerance": data.get("jitter_tolerance") or None,
            "isolation": data.get("isolation") or None,
            "failure_semantics": data.get("failure_semantics") or None,
            "tenancy": data.get("tenancy") or None,
            "tenant_count": data.get("tenant_count"),
            "cross_tenant_sharing": data.get("cross_tenant_sharing") or None,
            "gpu_model": (data.get("gpu_model") or "").strip() or None,
            "gpu_memory_gb": data.get("gpu_memory_gb"),
            "node_count": data.get("node_count"),
            "gpus_per_node": data.get("gpus_per_node"),
            "workload_mix": data.get("workload_mix") or None,
            "kubernetes_version": data.get("kubernetes_version") or None,
            "component_versions": data.get("component_versions") or None,
            "priorities": data.get("priorities") or [],
            "time_windows": {
                kind: data[name]
                for name, kind in self.WINDOW_FIELDS.items()
                if kind in kinds and data.get(name)
            },
            "workload_isolation": {
                kind: data[name]
                for name, kind in self.ISOLATION_FIELDS.items()
                if kind in kinds and data.get(name)
            },
        }
        profile |= self.fleet.to_data()
        if self.fleet.filled("node_groups"):
            # The groups say the cluster's models, nodes and shapes (the single fields are not
            # shown beside them).
            profile |= {"gpu_model": None, "node_count": None, "gpus_per_node": None}
        if self.fleet.filled("tenants"):
            profile["tenant_count"] = None  # the named tenants are counted
        return {key: value for key, value in profile.items() if key not in self.errors}


class UnitsForm(forms.Form):
    """Step 2: a checkbox per resource unit, with a note on each chosen one."""

    def __init__(self, *args: Any, unit_keys: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.unit_keys = unit_keys
        self.fields["units"] = forms.MultipleChoiceField(
            label=_("Resource units considered"),
            choices=[(key, key) for key in unit_keys],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
        for key in unit_keys:
            self.fields[f"note_{key}"] = forms.CharField(
                label=_("Note"), required=False, max_length=2000, widget=forms.Textarea({"rows": 2})
            )

    def to_data(self) -> dict[str, Any]:
        chosen = self.cleaned_data.get("units") or []
        return {
            "units": [
                {"unit": key, "note": self.cleaned_data.get(f"note_{key}") or ""}
                for key in self.unit_keys
                if key in chosen
            ]
        }


# Candidates put in the same group are the ones the team weighs against each other (step 3). A
# new group takes the next free letter unless the team names it; the select offers both.
GROUP_LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

NAMED_GROUP = "__named__"


def alternative_group_choices(existing: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The alternatives-group select: none, the groups in use, a new lettered one, a named one."""
    used = sorted({name for name in existing if name and name != NAMED_GROUP})
    letter = next((letter for letter in GROUP_LETTERS if letter not in used), None)
    return [
        ("", str(_("none"))),
        *((name, str(_("group %(name)s") % {"name": name})) for name in used),
        *([(letter, str(_("new group %(name)s") % {"name": letter}))] if letter else []),
        (NAMED_GROUP, str(_("new group, named…"))),
    ]


class CandidatesForm(forms.Form):
    """Step 3: per candidate, its enforcement points, confirmation and alternatives group."""

    def __init__(
        self,
        *args: Any,
        candidates: list[Candidate],
        point_choices: list[tuple[str, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.candidates = candidates
        for candidate in candidates:
            self.fields[f"points_{candidate.pk}"] = forms.MultipleChoiceField(
                label=_("Enforcement points"),
                choices=point_choices,
                widget=forms.CheckboxSelectMultiple,
                required=False,
                initial=[point.key for point in candidate.enforcement_points.all()],
            )
            self.fields[f"confirmed_{candidate.pk}"] = forms.BooleanField(
                label=_("Confirmed"), required=False, initial=candidate.points_confirmed
            )
            # Any name: the select offers the groups in use and new ones (alternative_group_choices)
            self.fields[f"group_{candidate.pk}"] = forms.CharField(
                label=_("Alternatives group"),
                required=False,
                max_length=40,
                initial=candidate.alternative_group,
            )
            self.fields[f"group_name_{candidate.pk}"] = forms.CharField(
                label=_("Name of the new group"), required=False, max_length=40
            )

    def to_data(self, *, remove: set[int] | None = None) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "candidates": [
                {
                    "row": candidate.row.ref,
                    "enforcement_points": list(data.get(f"points_{candidate.pk}") or []),
                    "points_confirmed": bool(data.get(f"confirmed_{candidate.pk}")),
                    "alternative_group": self._group(candidate),
                }
                for candidate in self.candidates
                if candidate.pk not in (remove or set())
            ]
        }

    def _group(self, candidate: Candidate) -> str:
        group = self.cleaned_data.get(f"group_{candidate.pk}") or ""
        if group != NAMED_GROUP:
            return group
        # "New group, named…" with no name typed yet keeps the group the candidate had.
        name = (self.cleaned_data.get(f"group_name_{candidate.pk}") or "").strip()
        return name or candidate.alternative_group


class BoundariesForm(forms.Form):
    """Step 4: per candidate, what it is and is not responsible for (pre-filled from the row)."""

    def __init__(self, *args: Any, candidates: list[Candidate], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.candidates = candidates
        for candidate in candidates:
            self.fields[f"promise_{candidate.pk}"] = forms.CharField(
                label=_("Responsible for"),
                required=False,
                max_length=4000,
                initial=candidate.boundary_promise,
                widget=forms.Textarea({"rows": 5}),
            )
            self.fields[f"non_promise_{candidate.pk}"] = forms.CharField(
                label=_("Not responsible for"),
                required=False,
                max_length=4000,
                initial=candidate.boundary_non_promise,
                widget=forms.Textarea({"rows": 5}),
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for candidate in self.candidates:
            for name in ("promise", "non_promise"):
                if not (data.get(f"{name}_{candidate.pk}") or "").strip():
                    self.add_error(
                        f"{name}_{candidate.pk}",
                        _("One sentence is enough, but it cannot be empty."),
                    )
        return data

    def to_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "boundaries": [
                {
                    "row": candidate.row.ref,
                    "promise": data.get(f"promise_{candidate.pk}") or "",
                    "non_promise": data.get(f"non_promise_{candidate.pk}") or "",
                }
                for candidate in self.candidates
            ]
        }
