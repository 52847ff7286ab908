"""Catalog models: the seeded vocabulary, interfaces, projects, placement rows and their history."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from catalog.querysets import PlacementRowQuerySet, ProjectQuerySet


class VocabularyTerm(models.Model):
    """A seeded, admin-editable term with an English and a Simplified Chinese name."""

    key = models.SlugField(_("key"), max_length=40, unique=True)
    name_en = models.CharField(_("name (English)"), max_length=100)
    name_zh = models.CharField(_("name (Chinese)"), max_length=100)
    description_en = models.TextField(_("description (English)"), blank=True)
    description_zh = models.TextField(_("description (Chinese)"), blank=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        abstract = True
        ordering = ["position", "key"]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return self.name_zh if _prefers_chinese() else self.name_en

    @property
    def description(self) -> str:
        return self.description_zh if _prefers_chinese() else self.description_en


def _prefers_chinese() -> bool:
    return (translation.get_language() or "en").lower().startswith("zh")


class Layer(VocabularyTerm):
    class Meta(VocabularyTerm.Meta):
        verbose_name = _("layer")
        verbose_name_plural = _("layers")


class ResourceUnit(VocabularyTerm):
    class Meta(VocabularyTerm.Meta):
        verbose_name = _("resource unit")
        verbose_name_plural = _("resource units")


class EnforcementPoint(VocabularyTerm):
    class Meta(VocabularyTerm.Meta):
        verbose_name = _("enforcement point")
        verbose_name_plural = _("enforcement points")


class InterfaceKind(models.TextChoices):
    RESOURCE = "resource", _("extended resource")
    CRD = "crd", _("custom resource definition")
    API = "api", _("API")
    SIGNAL = "signal", _("signal (metric)")
    LABEL = "label", _("node label")
    CAPABILITY = "capability", _("capability")
    OWNER = "owner", _("ownership token")


class Interface(models.Model):
    """A contract identifier `kind:name`; requires/accepts may hold glob patterns."""

    identifier = models.CharField(_("identifier"), max_length=220, unique=True)
    kind = models.CharField(_("kind"), max_length=20, choices=InterfaceKind.choices)
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        ordering = ["kind", "name"]
        verbose_name = _("interface")
        verbose_name_plural = _("interfaces")

    def __str__(self) -> str:
        return self.identifier

    @property
    def is_pattern(self) -> bool:
        return any(char in self.name for char in "*?[")


class Tag(models.Model):
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    name = models.CharField(_("name"), max_length=100)

    class Meta:
        ordering = ["name"]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self) -> str:
        return self.name


class Project(models.Model):
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    name = models.CharField(_("name"), max_length=200)
    vendor = models.CharField(_("vendor"), max_length=200, blank=True)
    homepage = models.URLField(_("homepage"), max_length=500, blank=True)
    repository = models.URLField(_("repository"), max_length=500, blank=True)
    license = models.CharField(_("license"), max_length=100, blank=True)
    description = models.TextField(_("description"), blank=True)
    tags = models.ManyToManyField(Tag, related_name="projects", blank=True, verbose_name=_("tags"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = _("project")
        verbose_name_plural = _("projects")
        permissions = [("maintain_catalog", _("Can write the catalog and import bundles"))]
        indexes = [
            # the catalog list orders by name and filters by it in free-text search
            models.Index(fields=["name"], name="project_name_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class IsolationLevel(models.TextChoices):
    HARD = "hard", _("hard")
    SOFT = "soft", _("soft")
    NONE = "none", _("none")


class CostLevel(models.TextChoices):
    LOW = "low", _("low")
    MEDIUM = "medium", _("medium")
    HIGH = "high", _("high")


COST_ASPECTS = ("performance", "reconfiguration", "intrusiveness", "compatibility")
ISOLATION_ASPECTS = ("memory", "compute", "fault")


class PlacementRow(models.Model):
    """One component of a project placed on the map: the one-page template of METHOD.md."""

    # No single-column indexes on project or key: the unique (project, key) constraint leads
    # with the project and serves every lookup, and each index costs time on large imports.
    project = models.ForeignKey(
        Project,
        on_delete=models.CASCADE,
        related_name="placements",
        verbose_name=_("project"),
        db_index=False,
    )
    key = models.SlugField(_("key"), max_length=80, db_index=False)
    component = models.CharField(_("component"), max_length=200, blank=True)
    layer = models.ForeignKey(
        Layer, on_delete=models.PROTECT, related_name="placements", verbose_name=_("layer")
    )
    resource_units = models.ManyToManyField(
        ResourceUnit, related_name="placements", verbose_name=_("resource units")
    )
    enforcement_points = models.ManyToManyField(
        EnforcementPoint, related_name="placements", verbose_name=_("enforcement points")
    )
    isolation_memory = models.CharField(
        _("memory isolation"), max_length=10, choices=IsolationLevel.choices, default="none"
    )
    isolation_compute = models.CharField(
        _("compute isolation"), max_length=10, choices=IsolationLevel.choices, default="none"
    )
    isolation_fault = models.CharField(
        _("fault isolation"), max_length=10, choices=IsolationLevel.choices, default="none"
    )
    promise = models.TextField(_("main promise"))
    non_promise = models.TextField(_("does not promise"), blank=True)
    cost_performance = models.CharField(
        _("performance overhead"), max_length=10, choices=CostLevel.choices, blank=True
    )
    cost_performance_note = models.TextField(_("performance overhead note"), blank=True)
    cost_reconfiguration = models.CharField(
        _("reconfiguration cost"), max_length=10, choices=CostLevel.choices, blank=True
    )
    cost_reconfiguration_note = models.TextField(_("reconfiguration cost note"), blank=True)
    cost_intrusiveness = models.CharField(
        _("intrusiveness"), max_length=10, choices=CostLevel.choices, blank=True
    )
    cost_intrusiveness_note = models.TextField(_("intrusiveness note"), blank=True)
    cost_compatibility = models.CharField(
        _("compatibility cost"), max_length=10, choices=CostLevel.choices, blank=True
    )
    cost_compatibility_note = models.TextField(_("compatibility cost note"), blank=True)
    failure_modes = models.JSONField(_("typical failure modes"), default=list, blank=True)
    evidence = models.JSONField(_("evidence"), default=list, blank=True)
    unverified = models.JSONField(_("unverified claims"), default=list, blank=True)
    project_version = models.CharField(_("project version"), max_length=60, blank=True)
    reviewed_on = models.DateField(_("reviewed"), null=True, blank=True)
    interfaces = models.ManyToManyField(
        Interface, through="PlacementInterface", related_name="placements", blank=True
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = PlacementRowQuerySet.as_manager()

    class Meta:
        ordering = ["project__name", "key"]
        verbose_name = _("placement row")
        verbose_name_plural = _("placement rows")
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="placement_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.project.slug}/{self.key}" if self.project_id else self.key

    @property
    def ref(self) -> str:
        """The stable id the engine and the shell commands use: `project/key`."""
        return f"{self.project.slug}/{self.key}"

    def isolation(self) -> dict[str, str]:
        return {aspect: getattr(self, f"isolation_{aspect}") for aspect in ISOLATION_ASPECTS}

    def costs(self) -> dict[str, dict[str, str]]:
        return {
            aspect: {
                "level": getattr(self, f"cost_{aspect}"),
                "note": getattr(self, f"cost_{aspect}_note"),
            }
            for aspect in COST_ASPECTS
            if getattr(self, f"cost_{aspect}")
        }


class Relation(models.TextChoices):
    PROVIDES = "provides", _("provides")
    REQUIRES = "requires", _("requires")
    ACCEPTS = "accepts", _("accepts")
    EXCLUSIVE = "exclusive", _("exclusive")
    SIGNAL = "signals", _("signals")


class PlacementInterface(models.Model):
    # Indexed through the unique (row, …) constraint and contract_by_interface_idx below.
    row = models.ForeignKey(
        PlacementRow, on_delete=models.CASCADE, related_name="contracts", db_index=False
    )
    interface = models.ForeignKey(
        Interface, on_delete=models.PROTECT, related_name="contracts", db_index=False
    )
    relation = models.CharField(max_length=10, choices=Relation.choices)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["relation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["row", "interface", "relation"], name="placement_interface_unique"
            ),
        ]
        indexes = [
            # "who provides / requires X": interface pages and the map's composes-with filter
            models.Index(fields=["interface", "relation"], name="contract_by_interface_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.row_id} {self.relation} {self.interface_id}"


class ChangeAction(models.TextChoices):
    CREATED = "created", pgettext_lazy("catalog change", "created")
    UPDATED = "updated", pgettext_lazy("catalog change", "updated")
    DELETED = "deleted", pgettext_lazy("catalog change", "deleted")


class CatalogChange(models.Model):
    """History of the catalog: every create, update and delete of a project or row, field by field.

    Written only by catalog services, so the admin, the API, imports and load_catalog all leave
    the same trace. Its highest id is the catalog revision matrix snapshots are computed from.
    """

    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("who"),
    )
    source = models.CharField(_("source"), max_length=200, blank=True)
    project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="changes"
    )
    # Looked up through change_by_project_idx only (an import writes one change per item).
    project_slug = models.SlugField(_("project"), max_length=80, db_index=False)
    row_key = models.SlugField(_("placement row"), max_length=80, blank=True, db_index=False)
    action = models.CharField(_("action"), max_length=10, choices=ChangeAction.choices)
    changes = models.JSONField(_("what changed"), default=dict)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("catalog change")
        verbose_name_plural = _("catalog changes")
        indexes = [
            # project detail page: history of one project, newest first
            models.Index(fields=["project_slug", "-id"], name="change_by_project_idx"),
        ]

    def __str__(self) -> str:
        target = f"{self.project_slug}/{self.row_key}" if self.row_key else self.project_slug
        return f"{self.action} {target}"


class ImportJob(models.Model):
    """One import of vendor data (bundle, CSV or landscape): who, when, source, counts, diff."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    class Format(models.TextChoices):
        BUNDLE = "bundle", _("EcoMap bundle v1")
        CSV = "csv", _("CSV")
        LANDSCAPE = "landscape", _("CNCF landscape.yml")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(_("submitted"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("submitted by"),
    )
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=500, blank=True)
    format = models.CharField(_("format"), max_length=20, choices=Format.choices)
    dry_run = models.BooleanField(_("dry run"), default=False)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    total = models.PositiveIntegerField(_("items"), default=0)
    done = models.PositiveIntegerField(_("items done"), default=0)
    counts = models.JSONField(_("counts"), default=dict, blank=True)
    changes = models.JSONField(_("changes"), default=list, blank=True)
    errors = models.JSONField(_("errors"), default=list, blank=True)
    linked = models.JSONField(_("linked to existing projects"), default=list, blank=True)
    # The validated bundle waiting for a worker, as compressed JSON (catalog.imports packs it:
    # ten times smaller and ~0.3 s faster per 10,000 rows than a jsonb column); emptied once
    # applied.
    payload = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("import")
        verbose_name_plural = _("imports")
        indexes = [
            # the imports page and API list newest first
            models.Index(fields=["-created_at"], name="import_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_format_display()} import {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else (100 if self.finished else 0)


class MatrixSnapshot(models.Model):
    """The compatibility matrix of the catalog (or of a set of rows) at one catalog revision.

    Stored compactly: the engine's `ecomap.matrix/v1` bytes (one byte per pair, zlib) plus the
    rows it was computed from, so any cell can be explained later without the live catalog.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("computing")
        SUCCEEDED = "succeeded", _("ready")
        FAILED = "failed", _("failed")

    CATALOG_SCOPE = "catalog"

    scope = models.CharField(_("scope"), max_length=80, default=CATALOG_SCOPE)
    catalog_revision = models.PositiveIntegerField(_("catalog revision"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    row_count = models.PositiveIntegerField(_("rows"), default=0)
    counts = models.JSONField(_("pairs per verdict"), default=dict, blank=True)
    timings = models.JSONField(_("timings (s)"), default=dict, blank=True)
    error = models.TextField(_("error"), blank=True)
    matrix = models.BinaryField(null=True, blank=True, editable=False)
    rows = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("matrix snapshot")
        verbose_name_plural = _("matrix snapshots")
        constraints = [
            # A burst of catalog edits queues one job: at most one waiting snapshot per scope.
            models.UniqueConstraint(
                fields=["scope"],
                condition=models.Q(status="pending"),
                name="matrix_one_pending_per_scope",
            ),
            # A rerun for the same revision never duplicates a finished snapshot.
            models.UniqueConstraint(
                fields=["scope", "catalog_revision"],
                condition=models.Q(status="succeeded"),
                name="matrix_one_per_revision",
            ),
        ]
        indexes = [
            # the matrix page: latest snapshot of a scope by status
            models.Index(fields=["scope", "status", "-id"], name="matrix_latest_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.scope}@{self.catalog_revision} ({self.status})"
