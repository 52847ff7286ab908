"""Step 1's cluster as it is (profile v2): node groups, named tenants with their demand, and what
is installed, as rows of formsets the page adds and removes without JavaScript (a submit button
and a round trip, `rows_edited`). The rows only shape input; the rules are the engine's
(catalog.engine.fleet), and its errors ("tenants[2].demand[0].gpus: …") are put back on the row
and the field they name (`FleetForms.add_engine_error`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.forms import formset_factory
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.engine.fleet import (
    DEMANDS_MAX,
    GPU_MODEL_MAX,
    GPUS_MAX,
    GPUS_PER_NODE_MAX,
    INSTALLED_MAX,
    NODE_GROUPS_MAX,
    NODES_MAX,
    REPLICAS_MAX,
    TENANTS_MAX,
)
from catalog.engine.gpus import gpu_models
from catalog.engine.profile import DEFAULT_GROUP
from catalog.engine.text import render as render_text
from catalog.models import Project

FLEET_FIELDS: tuple[str, ...] = ("node_groups", "tenants", "installed")

# The page's workload words, ProfileForm's too (it imports them from here: no cycle).
WORKLOAD_CHOICES = [
    ("training", _("Training")),
    ("batch", _("Batch")),
    ("online_inference", _("Online inference")),
    ("interactive", _("Interactive development")),
]
TENANT_SHARING_CHOICES = [
    ("", _("— profile default")),
    ("never", _("never: a GPU serves one tenant at a time")),
    ("hard_partitions", _("only through hard partitions (MIG: memory, compute and fault)")),
    ("allowed", _("allowed: tenants may share a GPU")),
]
TENANT_ISOLATION_CHOICES = [
    ("", _("— profile default")),
    ("hard", _("hard")),
    ("soft", _("soft")),
    ("none", _("none")),
]
WHEN_CHOICES = [("always", _("always")), ("window", _("in a time window"))]

# A name becomes a Kubernetes name: the browser is told so, the engine checks it.
NAME_ATTRS = {"spellcheck": "false", "autocomplete": "off", "autocapitalize": "none"}
# Converting "number of tenants" into named rows stops here: beyond it, name them one by one.
CONVERTED_TENANTS_MAX = 20

_ENGINE_PATH = re.compile(
    r"^(?P<field>node_groups|tenants|installed)"
    r"(?:\[(?P<row>\d+)\](?:\.demand\[(?P<line>\d+)\])?)?(?:\.(?P<attr>[a-z_]+))?\s*[:：]"
)


def _blank(value: Any) -> bool:
    return value in (None, "", [], ())


class NodeGroupForm(forms.Form):
    """One node group: nodes of one shape."""

    name = forms.CharField(
        label=_("Name"),
        required=False,
        max_length=63,
        widget=forms.TextInput({**NAME_ATTRS, "placeholder": _("e.g. a100")}),
    )
    gpu_model = forms.CharField(
        label=_("GPU model"),
        required=False,
        max_length=GPU_MODEL_MAX,
        # The GPU facts' models from the page's <datalist>, or any text: an unknown model is kept.
        widget=forms.TextInput(
            {
                "list": "gpu-models",
                "autocomplete": "off",
                "spellcheck": "false",
                "placeholder": _("e.g. A100 40GB"),
            }
        ),  # fmt: skip
    )
    nodes = forms.IntegerField(label=_("Nodes"), required=False, min_value=1, max_value=NODES_MAX)
    gpus_per_node = forms.IntegerField(
        label=_("GPUs per node"),
        required=False,
        min_value=1,
        max_value=GPUS_PER_NODE_MAX,
        widget=forms.NumberInput({"placeholder": "8"}),
    )

    SHOWN = ("name", "gpu_model", "nodes", "gpus_per_node")

    def filled(self) -> bool:
        return any(not _blank(self[name].value()) for name in self.SHOWN)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.filled() and not (data.get("name") or "").strip() and "name" not in self.errors:
            self.add_error("name", _("Name the node group."))
        return data

    def to_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "name": (data.get("name") or "").strip(),
            "gpu_model": (data.get("gpu_model") or "").strip() or None,
            "nodes": data.get("nodes"),
            "gpus_per_node": data.get("gpus_per_node"),
        }


class DemandForm(forms.Form):
    """One line of a tenant's demand: whole GPUs, or replicas of whole GPUs or of a MIG slice."""

    workload = forms.ChoiceField(
        label=_("Workload"), required=False, choices=[("", "—"), *WORKLOAD_CHOICES]
    )
    gpus = forms.IntegerField(label=_("GPUs"), required=False, min_value=1, max_value=GPUS_MAX)
    replicas = forms.IntegerField(
        label=_("Replicas"), required=False, min_value=1, max_value=REPLICAS_MAX
    )
    gpus_per_replica = forms.IntegerField(
        label=_("GPUs per replica"), required=False, min_value=1, max_value=64
    )
    mig_profile = forms.CharField(
        label=_("MIG profile"),
        required=False,
        max_length=20,
        widget=forms.TextInput(
            {
                "list": "mig-profiles",
                "autocomplete": "off",
                "spellcheck": "false",
                "placeholder": _("e.g. 1g.10gb"),
            }
        ),  # fmt: skip
    )
    when = forms.ChoiceField(label=_("When"), required=False, choices=WHEN_CHOICES)

    SHOWN = ("workload", "gpus", "replicas", "gpus_per_replica", "mig_profile")

    def filled(self) -> bool:
        # `when` always has a value (always): a line with nothing else is an empty line.
        return any(not _blank(self[name].value()) for name in self.SHOWN)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.filled() and not data.get("workload") and "workload" not in self.errors:
            self.add_error("workload", _("Say which of the tenant's workloads this is."))
        return data

    def to_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        line: dict[str, Any] = {"workload": data.get("workload")}
        for name in ("gpus", "replicas", "gpus_per_replica"):
            if data.get(name) is not None:
                line[name] = data[name]
        if (data.get("mig_profile") or "").strip():
            line["mig_profile"] = data["mig_profile"].strip()
        line["when"] = data.get("when") or "always"
        return line


DemandFormSet = formset_factory(DemandForm, extra=0, max_num=DEMANDS_MAX, absolute_max=DEMANDS_MAX)


class TenantForm(forms.Form):
    """One named tenant, with its demand lines as a formset of its own (`demand`)."""

    name = forms.CharField(
        label=_("Name"),
        required=False,
        max_length=63,
        widget=forms.TextInput({**NAME_ATTRS, "placeholder": _("e.g. research")}),
    )
    workloads = forms.MultipleChoiceField(
        label=_("Workloads"),
        required=False,
        choices=WORKLOAD_CHOICES,
        widget=forms.CheckboxSelectMultiple,
    )
    cross_tenant_sharing = forms.ChoiceField(
        label=_("GPUs shared with other tenants"), required=False, choices=TENANT_SHARING_CHOICES
    )
    isolation = forms.ChoiceField(
        label=_("Isolation"), required=False, choices=TENANT_ISOLATION_CHOICES
    )

    SHOWN = ("name", "workloads", "cross_tenant_sharing", "isolation")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.demand = DemandFormSet(
            self.data if self.is_bound else None,
            prefix=f"{self.prefix}-demand",
            initial=list((self.initial or {}).get("demand") or []),
        )

    def filled(self) -> bool:
        own = any(not _blank(self[name].value()) for name in self.SHOWN)
        return own or any(line.filled() for line in self.demand)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.filled() and not (data.get("name") or "").strip() and "name" not in self.errors:
            self.add_error("name", _("Name the tenant."))
        return data

    def to_data(self, lines: list[DemandForm]) -> dict[str, Any]:
        data = self.cleaned_data
        tenant: dict[str, Any] = {
            "name": (data.get("name") or "").strip(),
            "workloads": list(data.get("workloads") or []),
        }
        if data.get("cross_tenant_sharing"):
            tenant["cross_tenant_sharing"] = data["cross_tenant_sharing"]
        if data.get("isolation"):
            tenant["isolation"] = data["isolation"]
        tenant["demand"] = [line.to_data() for line in lines]
        return tenant


class InstalledForm(forms.Form):
    """A component that runs in the cluster now, and its version."""

    project = forms.ChoiceField(label=_("Project"), required=False)
    version = forms.CharField(
        label=_("Version"),
        required=False,
        max_length=40,
        widget=forms.TextInput({"placeholder": _("e.g. 0.10.1"), "spellcheck": "false"}),
    )

    SHOWN = ("project", "version")

    def __init__(self, *args: Any, project_choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["project"].choices = [("", "—"), *project_choices]

    def filled(self) -> bool:
        return any(not _blank(self[name].value()) for name in self.SHOWN)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.filled() and not data.get("project") and "project" not in self.errors:
            self.add_error("project", _("Pick the project from the catalog."))
        return data

    def to_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"project": data["project"], "version": (data.get("version") or "").strip() or None}


NodeGroupFormSet = formset_factory(
    NodeGroupForm, extra=0, max_num=NODE_GROUPS_MAX, absolute_max=NODE_GROUPS_MAX
)
TenantFormSet = formset_factory(TenantForm, extra=0, max_num=TENANTS_MAX, absolute_max=TENANTS_MAX)
InstalledFormSet = formset_factory(
    InstalledForm, extra=0, max_num=INSTALLED_MAX, absolute_max=INSTALLED_MAX
)


def project_choices(extra: list[str]) -> list[tuple[str, str]]:
    """The catalog's projects by name; a stored slug the catalog no longer has stays pickable."""
    choices = list(Project.objects.order_by("name").values_list("slug", "name"))
    known = {slug for slug, _name in choices}
    return choices + [(slug, slug) for slug in extra if slug and slug not in known]


def mig_profile_names() -> list[str]:
    """Every MIG profile of the GPU facts, for the demand lines' list of suggestions."""
    names = {profile.name for model in gpu_models() for profile in model.mig_profiles}
    return sorted(names, key=lambda name: (int(name.split("g.")[0]), len(name), name))


class FleetForms:
    """The three tables of step 1 together: built from a POST or the stored profile, read back
    as the profile's `node_groups`, `tenants` and `installed`, with errors by row."""

    def __init__(self, data: Mapping[str, Any] | None, profile: Mapping[str, Any]) -> None:
        # A POST is read as posted: with the stored rows as initial, Django would skip a posted
        # row equal to its stored one (an extra form that "has not changed").
        stored = {name: list(profile.get(name) or []) if data is None else None
                  for name in FLEET_FIELDS}  # fmt: skip
        installed = list(profile.get("installed") or [])
        self.node_groups = NodeGroupFormSet(
            data, prefix="node_groups", initial=stored["node_groups"]
        )
        self.tenants = TenantFormSet(data, prefix="tenants", initial=stored["tenants"])
        self.installed = InstalledFormSet(
            data,
            prefix="installed",
            initial=stored["installed"],
            form_kwargs={
                "project_choices": project_choices([item.get("project") for item in installed])
            },
        )
        # Table-level errors ("tenants: no tenant runs training"), by field.
        self.table_errors: dict[str, list[str]] = {name: [] for name in FLEET_FIELDS}
        # The row each item of the data came from: data index → form (blank rows are left out).
        self._rows: dict[str, list[Any]] = {}
        self._lines: dict[int, list[DemandForm]] = {}
        self._invalid: set[str] = set()

    def validate(self) -> None:
        """Check the filled rows; an invalid row makes its whole field keep the stored answer."""
        for name in FLEET_FIELDS:
            rows = [form for form in getattr(self, name) if form.filled()]
            self._rows[name] = rows
            for form in rows:
                if not form.is_valid():
                    self._invalid.add(name)
        for form in self._rows["tenants"]:
            lines = [line for line in form.demand if line.filled()]
            self._lines[id(form)] = lines
            checked = [line.is_valid() for line in lines]  # every line marked, not the first
            if not all(checked):
                self._invalid.add("tenants")

    def filled(self, name: str) -> bool:
        return bool(self._rows.get(name))

    def invalid(self) -> dict[str, list[str]]:
        """The fields with a row the form itself refused, with a sentence for the field."""
        return {name: [gettext("Correct the marked rows.")] for name in sorted(self._invalid)}

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in FLEET_FIELDS:
            if name in self._invalid:
                continue
            rows = self._rows.get(name, [])
            if name == "tenants":
                data[name] = [form.to_data(self._lines[id(form)]) for form in rows] or None
            else:
                data[name] = [form.to_data() for form in rows] or None
        return data

    def add_engine_error(self, field: str, message: Any) -> None:
        """The engine's error on the row and field it names, in the reader's language."""
        text = render_text(message, gettext)
        path = _ENGINE_PATH.match(str(message))
        if path is None or path["field"] != field:
            self.table_errors[field].append(text)
            return
        shown = _ENGINE_PATH.sub("", text, count=1).strip() or text
        rows = self._rows.get(field, [])
        if path["row"] is None or int(path["row"]) >= len(rows):
            self.table_errors[field].append(shown if path["row"] is None else text)
            return
        form = rows[int(path["row"])]
        if path["line"] is not None:
            lines = self._lines.get(id(form), [])
            if int(path["line"]) >= len(lines):
                form.add_error(None, shown)
                return
            form = lines[int(path["line"])]
        attr = path["attr"]
        form.add_error(attr if attr in form.fields else None, shown)

    def forms_with_errors(self):
        for name in FLEET_FIELDS:
            for form in getattr(self, name):
                yield form
                if name == "tenants":
                    yield from form.demand

    def has_errors(self) -> bool:
        return any(self.table_errors.values()) or any(
            form.is_bound and form.errors for form in self.forms_with_errors()
        )

    def errors_by_name(self) -> dict[str, list[str]]:
        """Every error under the name the page marks it by: a control's name, a row's prefix
        (`tenants-2`) or the table's (`tenants`)."""
        errors: dict[str, list[str]] = {
            name: list(messages) for name, messages in self.table_errors.items() if messages
        }
        for form in self.forms_with_errors():
            if not form.is_bound or not form.errors:
                continue
            for field, messages in form.errors.items():
                key = form.prefix if field == "__all__" else form[field].html_name
                errors.setdefault(key, []).extend(str(message) for message in messages)
        return errors


def rows_edited(data: Mapping[str, Any], action: str, *, profile_prefill: bool = True):
    """The POST with the row a button adds or removes (`add:tenants`, `add:tenants-2-demand`,
    `remove:node_groups-1`, `remove:tenants-0-demand-1`), rows after it renumbered; None when
    `action` is not one. The first node group or tenant added takes over what the single
    fields said (GPU model, node count, GPUs per node; number of tenants): one cluster is
    described once."""
    verb, _sep, target = action.partition(":")
    data = data.copy()
    tables = r"(node_groups|tenants|installed|tenants-\d+-demand)"
    if verb == "add" and re.fullmatch(tables, target):
        total = _count(data, f"{target}-TOTAL_FORMS")
        data[f"{target}-TOTAL_FORMS"] = str(total + 1)
        data.setdefault(f"{target}-INITIAL_FORMS", "0")
        if target == "tenants":
            data[f"tenants-{total}-demand-TOTAL_FORMS"] = "1"
            data[f"tenants-{total}-demand-INITIAL_FORMS"] = "0"
        if total == 0 and target == "node_groups" and profile_prefill:
            _groups_from_single_fields(data)
        if total == 0 and target == "tenants" and profile_prefill:
            _tenants_from_count(data)
        return data
    match = re.fullmatch(rf"(?P<prefix>{tables[1:-1]})-(?P<i>\d+)", target)
    if verb != "remove" or match is None:
        return None
    prefix, removed = match["prefix"], int(match["i"])
    total = _count(data, f"{prefix}-TOTAL_FORMS")
    if removed >= total:
        return data
    for key in list(data):
        index, _sep, rest = key.removeprefix(f"{prefix}-").partition("-")
        if not key.startswith(f"{prefix}-") or not index.isdigit() or not rest:
            continue
        values = data.getlist(key)
        del data[key]
        if int(index) < removed:
            data.setlist(key, values)
        elif int(index) > removed:
            data.setlist(f"{prefix}-{int(index) - 1}-{rest}", values)
    data[f"{prefix}-TOTAL_FORMS"] = str(total - 1)
    data[f"{prefix}-INITIAL_FORMS"] = str(min(_count(data, f"{prefix}-INITIAL_FORMS"), total - 1))
    return data


def _count(data: Mapping[str, Any], key: str) -> int:
    value = str(data.get(key) or "0")
    return min(int(value), 1_000) if value.isdigit() else 0


def _groups_from_single_fields(data) -> None:
    said = {name: (data.get(name) or "").strip() for name in ("gpu_model", "node_count",
                                                               "gpus_per_node")}  # fmt: skip
    if not any(said.values()):
        return
    data["node_groups-0-name"] = DEFAULT_GROUP
    data["node_groups-0-gpu_model"] = said["gpu_model"]
    data["node_groups-0-nodes"] = said["node_count"]
    data["node_groups-0-gpus_per_node"] = said["gpus_per_node"]
    for name in said:
        data[name] = ""


def _tenants_from_count(data) -> None:
    count = _count(data, "tenant_count")
    data["tenant_count"] = ""
    if not 1 <= count <= CONVERTED_TENANTS_MAX:
        return
    kinds = data.getlist("workload_types")
    data["tenants-TOTAL_FORMS"] = str(count)
    for number in range(count):
        data[f"tenants-{number}-name"] = f"tenant-{number + 1}"
        data.setlist(f"tenants-{number}-workloads", list(kinds))
        data[f"tenants-{number}-demand-TOTAL_FORMS"] = "1" if number == 0 else "0"
        data[f"tenants-{number}-demand-INITIAL_FORMS"] = "0"
