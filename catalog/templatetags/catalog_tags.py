"""Display helpers for placement cards."""

from __future__ import annotations

from urllib.parse import urlparse

from django import template
from django.core.cache import cache
from django.utils import translation

from catalog.selectors import contracts_of
from catalog.templatetags.labels import say_html

register = template.Library()


@register.filter
def contracts(row) -> dict[str, list[str]]:
    """The row's interface identifiers grouped by relation (uses the prefetched contracts)."""
    return contracts_of(row)


@register.filter
def say(text) -> str:
    """An engine's sentence (catalog.engine.text) in the reader's language, the keys and
    contract identifiers in it named (see catalog.templatetags.labels)."""
    return say_html(text)


def _function_terms() -> dict[str, tuple[str, str]]:
    from catalog.models import Function

    return {
        key: (en, zh) for key, en, zh in Function.objects.values_list("key", "name_en", "name_zh")
    }


@register.filter
def function_names(keys) -> list[str]:
    """A row's function keys as the vocabulary names them, in the reader's language (the table
    is admin-editable; cached for a minute)."""
    terms = cache.get_or_set("catalog:function-terms", _function_terms, 60)
    chinese = (translation.get_language() or "en").lower().startswith("zh")
    ordered = keys if isinstance(keys, list | tuple) else sorted(keys or ())
    return [terms.get(key, (key, key))[1 if chinese else 0] for key in ordered]


@register.filter
def hostname(url: str) -> str:
    return urlparse(url).netloc or url


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters replaced (and the page reset)."""
    query = context["request"].GET.copy()
    query.pop("page", None)
    for key, value in changes.items():
        if value in ("", None):
            query.pop(key, None)
        else:
            query[key] = value
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else "?"


@register.simple_tag(takes_context=True)
def facet_url(context, param: str, value: str) -> str:
    """Link that selects `value` for `param`, or clears it when it is already selected."""
    current = context["request"].GET.get(param, "")
    return query_with(context, **{param: "" if current == value else value})


@register.simple_tag(takes_context=True)
def page_url(context, param: str, number: int, fragment: str = "") -> str:
    """The current URL with page parameter `param` set to `number` (for pages with two lists)."""
    return query_with(context, **{param: number}) + (f"#{fragment}" if fragment else "")
