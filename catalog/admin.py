"""Catalog admin. Project and row edits go through `bundle_apply`: validated and recorded."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from catalog.api.permissions import MAINTAIN_CATALOG
from catalog.engine.bundle import BUNDLE_FORMAT, BundleInvalid
from catalog.imports.models import ImportJob
from catalog.matrix.models import MatrixSnapshot
from catalog.models import (
    CatalogChange,
    EnforcementPoint,
    Function,
    GpuVendor,
    Interface,
    Layer,
    PlacementRow,
    Project,
    ResourceUnit,
    Tag,
)
from catalog.selectors import contracts_of
from catalog.services import bundle_apply, placement_row_delete, project_delete


@admin.register(Function)
class FunctionAdmin(admin.ModelAdmin):
    list_display = ("key", "name_en", "name_zh", "layer", "position")
    list_filter = ("layer",)
    search_fields = ("key", "name_en", "name_zh")


@admin.register(Layer, ResourceUnit, EnforcementPoint)
class VocabularyAdmin(admin.ModelAdmin):
    list_display = ("key", "name_en", "name_zh", "position")
    list_editable = ("position",)
    search_fields = ("key", "name_en", "name_zh")


@admin.register(Interface)
class InterfaceAdmin(admin.ModelAdmin):
    list_display = ("identifier", "kind", "name")
    list_filter = ("kind",)
    search_fields = ("identifier", "description")


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")
    search_fields = ("name", "slug")


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def _validate_as_bundle(document: dict[str, Any]) -> None:
    """A dry run through the one write path; its errors become the form's errors."""
    try:
        bundle_apply(document=document, dry_run=True)
    except BundleInvalid as exc:
        raise ValidationError(
            [f"{error.path.split('.')[-1]}: {error.message}" for error in exc.errors]
        ) from exc


class CatalogWriteAdmin(admin.ModelAdmin):
    """Catalog content changes in the admin need the catalog-maintainer permission, as in the
    API and the imports, whatever model permissions a staff account holds."""

    def _maintains(self, request) -> bool:
        return request.user.has_perm(MAINTAIN_CATALOG)

    def has_add_permission(self, request):
        return self._maintains(request) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return self._maintains(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._maintains(request) and super().has_delete_permission(request, obj)


PROJECT_FIELDS = ("slug", "name", "vendor", "homepage", "repository", "license", "description")


class ProjectAdminForm(forms.ModelForm):
    homepage = forms.URLField(label=_("homepage"), required=False, assume_scheme="https")
    repository = forms.URLField(label=_("repository"), required=False, assume_scheme="https")
    tag_names = forms.CharField(
        label=_("tags"), required=False, help_text=_("Comma-separated."), max_length=2000
    )

    class Meta:
        model = Project
        fields = ["slug", "name", "vendor", "homepage", "repository", "license", "description"]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["tag_names"].initial = ", ".join(t.name for t in self.instance.tags.all())

    def bundle_project(self) -> dict[str, Any]:
        # Not Meta.fields: the admin's form factory adds the declared `tag_names` to it.
        data = {key: self.cleaned_data[key] for key in PROJECT_FIELDS if key in self.cleaned_data}
        data["slug"] = data.get("slug") or self.instance.slug
        data["tags"] = [t.strip() for t in self.cleaned_data["tag_names"].split(",") if t.strip()]
        return data

    def clean(self) -> dict[str, Any]:
        """Validate through the one write path (a dry run), so errors land on the form."""
        cleaned = super().clean()
        if self.errors:
            return cleaned
        _validate_as_bundle({"format": BUNDLE_FORMAT, "projects": [self.bundle_project()]})
        return cleaned


@admin.register(Project)
class ProjectAdmin(CatalogWriteAdmin):
    form = ProjectAdminForm
    list_display = ("name", "slug", "vendor", "updated_at")
    search_fields = ("name", "slug", "vendor", "description")
    list_filter = ("tags",)

    def get_readonly_fields(self, request, obj=None):
        return ("slug",) if obj else ()

    def save_model(self, request, obj, form, change):
        project = form.bundle_project()
        document = {"format": BUNDLE_FORMAT, "projects": [project]}
        bundle_apply(document=document, actor=request.user, source="admin")
        obj.pk = Project.objects.get(slug=project["slug"]).pk

    def save_related(self, request, form, formsets, change):
        """Tags were written by bundle_apply with the project."""

    def delete_model(self, request, obj):
        project_delete(project=obj, actor=request.user, source="admin")

    def delete_queryset(self, request, queryset):
        for project in queryset:
            project_delete(project=project, actor=request.user, source="admin")


CONTRACT_FIELDS = ("signals", "provides", "requires", "accepts", "exclusive")


class PlacementRowAdminForm(forms.ModelForm):
    """The row as the one-page template; contracts and lists are one item per line."""

    signals = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    provides = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    requires = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    accepts = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    exclusive = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    failure_mode_lines = forms.CharField(
        label=_("typical failure modes"), widget=forms.Textarea(attrs={"rows": 3}), required=False
    )
    evidence_lines = forms.CharField(
        label=_("evidence"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text=_("One per line: URL, optionally followed by ' — ' and the claim it supports."),
    )
    unverified_lines = forms.CharField(
        label=_("unverified claims"), widget=forms.Textarea(attrs={"rows": 2}), required=False
    )
    vendor_choices = forms.MultipleChoiceField(
        label=_("GPU vendors"),
        choices=GpuVendor.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("The GPU vendors the row serves. None ticked: vendor-neutral (any vendor's "
                    "GPUs)."),
    )  # fmt: skip
    function_choices = forms.ModelMultipleChoiceField(
        label=_("functions"),
        queryset=Function.objects.select_related("layer"),
        to_field_name="key",
        required=False,
        help_text=_("What question the row answers. Empty: inferred from the enforcement points "
                    "and capabilities, and shown as inferred."),
    )  # fmt: skip

    class Meta:
        model = PlacementRow
        fields = [
            "project",
            "key",
            "component",
            "layer",
            "resource_units",
            "enforcement_points",
            "isolation_memory",
            "isolation_compute",
            "isolation_fault",
            "promise",
            "non_promise",
            "cost_performance",
            "cost_performance_note",
            "cost_reconfiguration",
            "cost_reconfiguration_note",
            "cost_intrusiveness",
            "cost_intrusiveness_note",
            "cost_compatibility",
            "cost_compatibility_note",
            "project_version",
            "reviewed_on",
            "verified_at",
        ]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        row = self.instance
        if row.pk:
            contracts = contracts_of(row)
            for name in CONTRACT_FIELDS:
                self.fields[name].initial = "\n".join(contracts[name])
            self.fields["failure_mode_lines"].initial = "\n".join(row.failure_modes)
            self.fields["unverified_lines"].initial = "\n".join(row.unverified)
            if not row.functions_inferred:
                self.fields["function_choices"].initial = list(row.functions)
            self.fields["vendor_choices"].initial = list(row.vendors)
            self.fields["evidence_lines"].initial = "\n".join(
                f"{e['url']} — {e['claim']}" if e.get("claim") else e["url"] for e in row.evidence
            )

    def placement(self) -> dict[str, Any]:
        data = self.cleaned_data
        evidence = []
        for line in _lines(data["evidence_lines"]):
            url, _sep, claim = line.partition(" — ")
            evidence.append({"url": url.strip(), "claim": claim.strip()})
        placement: dict[str, Any] = {
            "key": data.get("key") or self.instance.key,
            "component": data["component"],
            "layer": data["layer"].key,
            "resource_units": [unit.key for unit in data["resource_units"]],
            "enforcement_points": [point.key for point in data["enforcement_points"]],
            "functions": [function.key for function in data["function_choices"]],
            "vendors": list(data["vendor_choices"]),
            "isolation": {
                aspect: data[f"isolation_{aspect}"] for aspect in ("memory", "compute", "fault")
            },
            "promise": data["promise"],
            "non_promise": data["non_promise"],
            "costs": {
                aspect: {"level": data[f"cost_{aspect}"], "note": data[f"cost_{aspect}_note"]}
                for aspect in ("performance", "reconfiguration", "intrusiveness", "compatibility")
                if data[f"cost_{aspect}"]
            },
            **{name: _lines(data[name]) for name in CONTRACT_FIELDS},
            "failure_modes": _lines(data["failure_mode_lines"]),
            "evidence": evidence,
            "project_version": data["project_version"],
            "unverified": _lines(data["unverified_lines"]),
        }
        if data["reviewed_on"]:
            placement["reviewed"] = data["reviewed_on"].isoformat()
        if data["verified_at"]:
            placement["verified_at"] = data["verified_at"].isoformat()
        # The form does not edit detection signatures or versions; a save keeps the stored ones.
        if self.instance.pk:
            for name in ("detect", "config", "versions", "contract_versions"):
                if getattr(self.instance, name):
                    placement[name] = getattr(self.instance, name)
        return {key: value for key, value in placement.items() if value not in ("", [], {})}

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        project = cleaned.get("project") or self.instance.project
        document = {
            "format": BUNDLE_FORMAT,
            "projects": [
                {
                    "slug": project.slug,
                    "name": project.name,
                    "placements": [self.placement()],
                }
            ],
        }
        _validate_as_bundle(document)
        self.bundle = document
        return cleaned


@admin.register(PlacementRow)
class PlacementRowAdmin(CatalogWriteAdmin):
    form = PlacementRowAdminForm
    list_display = ("__str__", "component", "layer", "reviewed_on")
    list_filter = ("layer", "resource_units", "enforcement_points")
    search_fields = ("project__name", "project__slug", "key", "component", "promise")
    list_select_related = ("project", "layer")
    autocomplete_fields = ("project",)

    def get_queryset(self, request):
        return super().get_queryset(request).with_cards()

    def get_readonly_fields(self, request, obj=None):
        return ("project", "key") if obj else ()

    def save_model(self, request, obj, form, change):
        bundle_apply(document=form.bundle, actor=request.user, source="admin")
        project = form.bundle["projects"][0]
        obj.pk = PlacementRow.objects.get(
            project__slug=project["slug"], key=project["placements"][0]["key"]
        ).pk

    def save_related(self, request, form, formsets, change):
        """Units, points and contracts were written by bundle_apply with the row."""

    def delete_model(self, request, obj):
        placement_row_delete(row=obj, actor=request.user, source="admin")

    def delete_queryset(self, request, queryset):
        for row in queryset:
            placement_row_delete(row=row, actor=request.user, source="admin")


@admin.register(CatalogChange)
class CatalogChangeAdmin(admin.ModelAdmin):  # read-only: history is written by services only
    list_display = ("created_at", "actor", "source", "project_slug", "row_key", "action")
    list_filter = ("action", "source")
    search_fields = ("project_slug", "row_key")
    readonly_fields = [f.name for f in CatalogChange._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written by jobs: visible in the admin, changed only by their services."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "created_by", "format", "source", "status", "dry_run", "total")
    list_filter = ("status", "format", "dry_run")
    search_fields = ("source",)
    exclude = ("payload",)


@admin.register(MatrixSnapshot)
class MatrixSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("id", "scope", "catalog_revision", "status", "row_count", "finished_at")
    list_filter = ("status", "scope")
    exclude = ("matrix", "rows")
