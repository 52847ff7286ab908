"""Kubernetes names: every name the generated YAML carries (tenant, pool, evaluation) must be a
DNS-1123 label, or it is refused with the reason; nothing is rewritten into one silently."""

from __future__ import annotations

import re

from catalog.engine.text import _

# RFC 1123 label as Kubernetes validates it (k8s.io/apimachinery IsDNS1123Label): at most 63
# characters, lower-case alphanumerics or '-', starting and ending with an alphanumeric.
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_LABEL_MAX = 63


class NameRefused(ValueError):
    """A name that cannot be a Kubernetes name; the message says which and why."""

    def __init__(self, what: str, name: object, reason: str) -> None:
        shown = repr(name if not isinstance(name, str) or len(name) <= 40 else name[:40] + "…")
        super().__init__(
            _(
                "%(what)s name %(name)s cannot be a Kubernetes name: %(reason)s",
                what=what,
                name=shown,
                reason=reason,
            )
        )
        self.what = what
        self.reason = reason


def k8s_name(what: str, name: object) -> str:
    """`name` when it is a DNS-1123 label, else NameRefused saying why."""
    if not isinstance(name, str):
        raise NameRefused(what, name, _("it is not text"))
    if not name:
        raise NameRefused(what, name, _("it is empty"))
    if len(name) > DNS1123_LABEL_MAX:
        raise NameRefused(
            what,
            name,
            _("it is longer than %(most)s characters", most=DNS1123_LABEL_MAX),
        )
    if not DNS1123_LABEL.fullmatch(name):
        raise NameRefused(
            what,
            name,
            _(
                "only lower-case letters, digits and '-' are allowed, starting and ending with a "
                "letter or digit (RFC 1123 label)"
            ),
        )
    return name


def comment_text(text: object) -> str:
    """One line of comment: control characters (newlines included) become spaces, so nothing a
    comment says can end the comment and start YAML of its own."""
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]+", " ", str(text)).strip()
