"""Catalog models: the seeded vocabulary, interfaces, projects, placement rows and their history."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
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


class Function(VocabularyTerm):
    """What question a placement row answers (a job); two rows compete only when they share one."""

    layer = models.ForeignKey(
        Layer, on_delete=models.PROTECT, related_name="functions", verbose_name=_("layer")
    )

    class Meta(VocabularyTerm.Meta):
        verbose_name = _("function")
        verbose_name_plural = _("functions")


class InterfaceKind(models.TextChoices):
    RESOURCE = "resource", _("extended resource")
    CRD = "crd", _("custom resource definition")
    API = "api", _("API")
    SIGNAL = "signal", _("signal (metric)")
    LABEL = "label", _("node label")
    CAPABILITY = "capability", _("capability")
    OWNER = "owner", _("ownership token")
    ASSIGNER = "assigner", _("device assigner (scheduler)")
    # A DRA driver's named DeviceClass (`deviceclass:gpu.nvidia.com`): the generic DeviceClass API
    # is the Kubernetes baseline, a named class ties a consumer to one driver.
    DEVICECLASS = "deviceclass", _("DRA DeviceClass")
    # A project another ships (`contains:kai-scheduler`, `contains:SLUG/KEY`): issue 43.
    CONTAINS = "contains", _("contained project (shipped inside)")


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
            # the catalog list orders by name
            models.Index(fields=["name"], name="project_name_idx"),
            # search: a project name typed with a typo (`name %> words`, pg_trgm word similarity)
            GinIndex(fields=["name"], opclasses=["gin_trgm_ops"], name="project_name_trgm"),
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


class GpuVendor(models.TextChoices):
    """The GPU vendors a placement row may serve: catalog.engine.rows.GPU_VENDORS, in its order.
    Their labels are the vendors' names (translated only where a language writes them otherwise)."""

    NVIDIA = "nvidia", _("NVIDIA")
    AMD = "amd", _("AMD")
    INTEL = "intel", _("Intel")
    HUAWEI = "huawei", _("Huawei")


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
    # Keys of the Function vocabulary (validated on the way in, like units); a list rather than
    # a relation so the bulk import writes them in its COPY and the engine reads them in one go.
    functions = models.JSONField(_("functions"), default=list, blank=True)
    functions_inferred = models.BooleanField(
        _("functions inferred"),
        default=False,
        help_text=_("The bundle listed no functions: they were inferred from enforcement points "
                    "and capabilities, not sourced."),
    )  # fmt: skip
    # The GPU vendors the row serves (catalog.engine.rows.GPU_VENDORS: nvidia, amd, intel, huawei),
    # validated by the bundle schema; an empty list means vendor-neutral. A JSON list, like
    # functions, so the bulk import writes it in its COPY and SQLite (the demo) stores it too.
    vendors = models.JSONField(
        _("GPU vendors"),
        default=list,
        blank=True,
        help_text=_("The GPU vendors the row serves; empty: any vendor's GPUs."),
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
    # How to recognise the component in a cluster snapshot (docs/cluster-snapshot.md): Helm chart,
    # CRD, image, workload, label, resource, DRA driver and webhook names, with their evidence.
    detect = models.JSONField(_("detection signatures"), default=dict, blank=True)
    # How generated configuration installs the component: {"helm": {chart, repository, release,
    # namespace, version_prefix}, "evidence": [...]} (bundle `config`), {} when not stated.
    config = models.JSONField(_("installation"), default=dict, blank=True)
    # The project versions the row's claims hold for: a range (">=2.9", ">=0.15,<0.20") or a
    # list ("0.19.2, 0.19.3"); empty means not stated. Per contract, `since` / `until` versions.
    versions = models.CharField(_("versions the claims hold for"), max_length=120, blank=True)
    contract_versions = models.JSONField(_("contract versions"), default=dict, blank=True)
    project_version = models.CharField(_("project version"), max_length=60, blank=True)
    reviewed_on = models.DateField(_("reviewed"), null=True, blank=True)
    verified_at = models.DateField(
        _("verified against upstream"),
        null=True,
        blank=True,
        help_text=_("When the row was last re-read against the project's own docs and code."),
    )
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


# Subsystem models live in their rooms; importing them here registers them with the catalog app.
from catalog.imports.models import ImportJob  # noqa: E402,F401
from catalog.matrix.models import MatrixSnapshot  # noqa: E402,F401
from catalog.search.models import ProjectSearchDocument, RowSearchDocument  # noqa: E402,F401
