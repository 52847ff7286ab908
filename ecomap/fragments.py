"""Rendered page fragments kept in the cache, for the parts of pages that cost the most to draw.

A fragment is rendered once per key and served as HTML until its key changes. The key must name
everything the fragment shows (the data's version, the reader's language, what the reader may
do); what belongs to one browser is never in a cached fragment: a `{% csrf_token %}` inside it
is rendered with a placeholder and the reader's own token is put in at serving.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.cache import cache
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

# What `{% csrf_token %}` writes as the value inside a cached fragment: letters only, so HTML
# escaping leaves it as it is, and nothing a page shows otherwise contains it.
CSRF_PLACEHOLDER = "ecomapCsrfTokenPlaceholder"
FRAGMENT_VERSION = 1


def fragment_key(name: str, *parts: object) -> str:
    """A fragment's cache key: its name, the reader's language and `parts`, which must name
    every input of the fragment."""
    language = translation.get_language() or "en"
    joined = ":".join(str(part) for part in parts)
    return f"fragment:v{FRAGMENT_VERSION}:{name}:{language}:{joined}"


def render_fragment(template: str, context: Mapping[str, Any]) -> str:
    """`template` rendered without a request, its CSRF token left as the placeholder."""
    return render_to_string(template, {**context, "csrf_token": CSRF_PLACEHOLDER})


def cached_fragment(
    request, key: str | None, render: Callable[[], str], *, timeout: int
) -> SafeString:
    """The fragment stored under `key`, rendered by `render()` when missing (and stored for
    `timeout` seconds); `key` None renders without storing. The reader's CSRF token replaces
    the placeholder."""
    html = cache.get(key) if key else None
    if not isinstance(html, str):
        html = render()
        if key:
            cache.set(key, html, timeout)
    if CSRF_PLACEHOLDER in html:
        html = html.replace(CSRF_PLACEHOLDER, get_token(request))
    return mark_safe(html)  # noqa: S308 (rendered by our templates, which escape their data)
