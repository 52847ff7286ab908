"""Labels instead of keys: vocabulary keys, contract identifiers and engine sentences as a reader
reads them, in the reader's language.

`{{ key|term:"unit" }}` names a vocabulary key (layer, unit, point, function, or one of the fixed
choices: levels, workload kinds); `{{ keys|terms:"unit" }}` a list of them; `{{ id|interface }}`
a contract identifier (`capability:gang-scheduling` reads "capability: gang scheduling", while a
resource name stays verbatim in <code>: it is what people type); `{{ sentence|say }}` an engine
sentence with the keys inside it named the same way. A key nobody named is shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from asgiref.local import Local
from django import template
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.utils import translation
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.engine.text import Text
from catalog.evidence import evidence_label

register = template.Library()

VOCABULARY_CACHE_KEY = "catalog:vocabulary-labels"

# The fixed (non-table) choices pages show: isolation and cost levels, the step-1 profile's
# workload kinds, objectives and priorities.
FIXED_TERMS: dict[str, dict[str, Any]] = {
    "isolation": {"hard": _("hard"), "soft": _("soft"), "none": _("none")},
    "level": {"low": _("low"), "medium": _("medium"), "high": _("high")},
    # GPU vendors a row serves (catalog.models.GpuVendor): their names.
    "vendor": {"nvidia": _("NVIDIA"), "amd": _("AMD"), "intel": _("Intel"), "huawei": _("Huawei")},
    "workload": {
        "training": _("Training"),
        "batch": _("Batch"),
        "online_inference": _("Online inference"),
        "interactive": _("Interactive development"),
    },
    "objective": {
        "throughput": _("Throughput first"),
        "p99_latency": _("P99 latency first"),
        "cost": _("Cost first"),
    },
    "priority": {
        "isolation": _("isolation strength"),
        "cost": _("cost target"),
        "observability": _("observability"),
        "compatibility": _("compatibility"),
    },
}

# How each kind of contract identifier reads inline ("capability: gang scheduling").
INTERFACE_KINDS = {
    "resource": _("resource"),
    "crd": _("CRD"),
    "api": _("API"),
    "signal": _("signal"),
    "label": _("node label"),
    "capability": _("capability"),
    "owner": _("owns"),
    "assigner": _("assigner"),
    "deviceclass": _("DeviceClass"),
    "contains": _("contains"),
}

# Capabilities are names people say, not identifiers they type: they read as words.
CAPABILITIES = {
    "gang-scheduling": _("gang scheduling"),
    "quota": _("quota"),
    "preemption": _("preemption"),
    "fair-sharing": _("fair sharing"),
    "topology-aware": _("topology-aware placement"),
    "nvidia-driver": _("NVIDIA driver"),
    "nvidia-container-toolkit": _("NVIDIA Container Toolkit"),
    "gpu-uuid-device-ids": _("GPU UUIDs as device IDs"),
    "gpu-node-labels": _("GPU node labels"),
    "hami-core": _("HAMi-core (libvgpu.so)"),
    "mig-devices-as-gpu": _("MIG devices advertised as nvidia.com/gpu"),
    "default-scheduler": _("default scheduler"),
}

# Keys that are also ordinary words ("none", "platform", "quota"): inside a sentence they are
# named only where the kind is known, never guessed.
_AMBIGUOUS = frozenset({"none", "platform", "scheduler", "admission", "cost", "label", "quota"})
_IDENTIFIER = re.compile(r"^(?P<kind>[a-z]+):(?P<name>\S+)$")


def _vocabulary_from_tables() -> dict[str, dict[str, tuple[str, str]]]:
    from catalog.models import EnforcementPoint, Function, Layer, ResourceUnit

    return {
        kind: {
            key: (en, zh) for key, en, zh in model.objects.values_list("key", "name_en", "name_zh")
        }
        for kind, model in (
            ("layer", Layer),
            ("unit", ResourceUnit),
            ("point", EnforcementPoint),
            ("function", Function),
        )
    }


# Inside a request the names come from the shared cache once: a page naming a few hundred keys
# made as many cache round trips (a third of the comparison page's time on Redis).
_this_request = Local()


def _request_begins(**kwargs) -> None:
    _this_request.vocabulary = None
    _this_request.active = True


def _request_ends(**kwargs) -> None:
    _this_request.vocabulary = None
    _this_request.active = False


request_started.connect(_request_begins, dispatch_uid="catalog.labels.request_begins")
request_finished.connect(_request_ends, dispatch_uid="catalog.labels.request_ends")


def _vocabulary() -> dict[str, dict[str, tuple[str, str]]]:
    """The seeded tables' names (admin-editable; cached for a minute, read once per request)."""
    if not getattr(_this_request, "active", False):
        return cache.get_or_set(VOCABULARY_CACHE_KEY, _vocabulary_from_tables, 60)
    if _this_request.vocabulary is None:
        _this_request.vocabulary = cache.get_or_set(
            VOCABULARY_CACHE_KEY, _vocabulary_from_tables, 60
        )
    return _this_request.vocabulary


def vocabulary_names(kind: str) -> dict[str, str]:
    """Key → name of one seeded table ("layer", "unit", "point", "function") in the reader's
    language, in the table's order; from the same cache as the labels (no query once warm)."""
    chinese = _chinese()
    return {key: (zh if chinese else en) for key, (en, zh) in _vocabulary()[kind].items()}


def _chinese() -> bool:
    return (translation.get_language() or "en").lower().startswith("zh")


def term_label(key: Any, kind: str | None = None) -> str:
    """The name of vocabulary key `key` (of `kind` when given, else the first kind that knows
    it) in the reader's language; the key itself when nothing names it."""
    if key in (None, ""):
        return ""
    key = str(key)
    tables = _vocabulary()
    kinds = [kind] if kind else [*tables, *FIXED_TERMS]
    for name in kinds:
        if name in tables and key in tables[name]:
            en, zh = tables[name][key]
            return zh if _chinese() else en
        if name in FIXED_TERMS and key in FIXED_TERMS[name]:
            return str(FIXED_TERMS[name][key])
    return key


def interface_html(identifier: str) -> SafeString:
    """A contract identifier as words: its kind named, a capability as words, any other name
    verbatim in <code> (resource and CRD names are what people type)."""
    match = _IDENTIFIER.match(str(identifier))
    if not match or match["kind"] not in INTERFACE_KINDS:
        return format_html('<code class="iface">{}</code>', identifier)
    kind, name = match["kind"], match["name"]
    kind_label = INTERFACE_KINDS[kind]
    if kind == "capability" and "*" not in name:
        words = CAPABILITIES.get(name) or name.replace("-", " ")
        return format_html(
            '<span class="iface-term" title="{}"><span class="iface-kind">{}</span>{} {}</span>',
            identifier,
            kind_label,
            gettext(":"),
            words,
        )
    return format_html(
        '<span class="iface-term"><span class="iface-kind">{}</span>{} <code title="{}">{}</code>'
        "</span>",
        kind_label,
        gettext(":"),
        identifier,
        name,
    )


def _is_key(value: str) -> bool:
    if value in _AMBIGUOUS:
        return False
    tables = _vocabulary()
    return any(value in table for table in tables.values()) or value in FIXED_TERMS["workload"]


def _common_kind(keys: list[str]) -> str | None:
    for kind, table in _vocabulary().items():
        if all(key in table for key in keys):
            return kind
    return None


# Kinds whose names are common nouns: lower-cased inside a sentence ("Preemption" → "preemption").
# Units and enforcement points keep their capitals ("MIG slice", "Kubernetes scheduler").
_COMMON_NOUN_KINDS = ("layer", "function", "workload")


def _in_sentence(key: str, kind: str | None = None) -> str:
    """A key's name as it reads inside an engine sentence."""
    if kind is None:
        tables = _vocabulary()
        kinds = [*tables, *FIXED_TERMS]
        kind = next(
            (k for k in kinds if key in tables.get(k, {}) or key in FIXED_TERMS.get(k, {})), None
        )
    name = term_label(key, kind)
    if kind in _COMMON_NOUN_KINDS and len(name) > 1 and name[0].isupper() and name[1].islower():
        return name[0].lower() + name[1:]
    return name


def phrase_html(value: str) -> str:
    """A plain value inside an engine sentence: a vocabulary key, a contract identifier, or a
    comma-separated list of them, named; anything else escaped as it is."""
    body, more = value.removesuffix("…").rstrip(), value.endswith("…")  # a list cut short
    parts = [part.strip() for part in body.split(",")]
    tail = " …" if more else ""
    if all(_is_key(part) for part in parts):
        return conditional_escape(", ".join(_in_sentence(p) for p in parts) + tail)
    kind = _common_kind(parts) if len(parts) > 1 else None
    if kind:  # "admission, scheduler": ordinary words alone, enforcement points together
        return conditional_escape(", ".join(_in_sentence(p, kind) for p in parts) + tail)
    if all(_IDENTIFIER.match(part) for part in parts):
        named = ", ".join(interface_html(part) for part in parts)
        return mark_safe(named + tail)  # noqa: S308 (built by format_html)
    return conditional_escape(value)


def say_html(text: Any) -> SafeString:
    """An engine sentence (catalog.engine.text) in the reader's language, with the keys and
    identifiers it mentions named (HTML-safe)."""
    if not isinstance(text, Text):
        return conditional_escape(text) if not isinstance(text, str) else phrase_html(text)
    if not text.params:
        if _is_key(text.template):  # a bare key the engine said through `_()`
            return conditional_escape(_in_sentence(text.template))
        return conditional_escape(gettext(text.template))
    values = {
        name: say_html(value) if isinstance(value, str) else value
        for name, value in text.params.items()
    }
    try:
        return mark_safe(conditional_escape(gettext(text.template)) % values)  # noqa: S308 (parts escaped)
    except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder
        return mark_safe(conditional_escape(text.template) % values)  # noqa: S308 (parts escaped)


@register.filter
def term(key, kind: str = "") -> str:
    return term_label(key, kind or None)


@register.filter
def terms(keys, kind: str = "") -> str:
    """A list of keys (or a comma-separated string) named and joined with commas."""
    if isinstance(keys, str):
        keys = [part.strip() for part in keys.split(",") if part.strip()]
    return ", ".join(term_label(key, kind or None) for key in (keys or ()))


@register.filter
def interface(identifier) -> SafeString:
    return interface_html(identifier)


@register.filter
def interfaces(identifiers: Iterable[str]) -> SafeString:
    return mark_safe(" ".join(interface_html(item) for item in identifiers or ()))  # noqa: S308


@register.filter
def say(text) -> SafeString:
    return say_html(text)


@register.filter
def evidence(url: str) -> str:
    return evidence_label(url)


@register.filter
def identifier_name(identifier: str) -> str:
    """`signal:dcgm/DCGM_FI_DEV_GPU_UTIL` → `dcgm/DCGM_FI_DEV_GPU_UTIL` (where the kind is the
    heading already)."""
    match = _IDENTIFIER.match(str(identifier))
    return match["name"] if match else str(identifier)


@register.filter
def pair_reasons(detail) -> list[tuple[str, SafeString]]:
    """A matrix pair's (verdict, reason) pairs, each reason said with its keys named."""
    return [
        (verdict, say_html(reason))
        for verdict, reason in zip(detail.holds, detail.reasons, strict=True)
    ]
