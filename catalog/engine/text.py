"""Sentences the engines write, translatable after the fact.

The engines are plain Python (no Django, no gettext), yet what they say is shown in English and
in Chinese. They write `_("…%(name)s…", name=value)`: the result *is* the English sentence (a
`str`, so JSON, the shell commands and the API see English text), and it also keeps its
template and parts, so the web layer can say it again in the reader's language
(`render(text, gettext)`). `makemessages` finds the templates because they are `_()` calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Translate = Callable[[str], str]


class Text(str):
    """An English sentence that remembers its template and its named parts."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, params: dict[str, Any] | None = None) -> Text:
        params = dict(params or {})
        text = super().__new__(cls, template % params if params else template)
        text.template = template
        text.params = params
        return text

    def __reduce__(self):  # copies and pickles keep the template and parts
        return (_restored, (str(self), self.template, self.params))


def _restored(sentence: str, template: str, params: dict[str, Any]) -> Text:
    """A pickled Text back, without formatting its template again (a cached ranking holds
    thousands of nested sentences: formatting each anew cost 0.2 s per read)."""
    text = str.__new__(Text, sentence)
    text.template = template
    text.params = params
    return text


def _(template: str, /, **params: Any) -> Text:
    """Mark an engine sentence: `_("pool %(pool)s has no data plane", pool=name)`."""
    return Text(template, params)


def joined(separator: str, parts: Iterable[str]) -> Text:
    """Sentences put together, each still translatable (the separator itself is not)."""
    parts = list(parts)
    names = [f"p{index}" for index in range(len(parts))]
    template = separator.replace("%", "%%").join(f"%({name})s" for name in names)
    return Text(template, dict(zip(names, parts, strict=True)))


def render(text: Any, translate: Translate) -> str:
    """`text` in the language `translate` speaks; plain strings come back as they are."""
    if not isinstance(text, Text):
        return str(text)
    if not text.params:
        return translate(text.template)
    values = {name: render(value, translate) for name, value in text.params.items()}
    try:
        return translate(text.template) % values
    except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder
        return text.template % values


# Vocabulary keys the engines say through `_(value)` (levels, aspects, workload kinds,
# enforcement points, relations): listed so that makemessages keeps their translations.
TERMS = (
    _("hard"), _("soft"), _("none"), _("memory"), _("compute"), _("fault"),
    _("training"), _("batch"), _("online_inference"), _("interactive"),
    _("driver_hardware"), _("runtime_interception"), _("scheduler"), _("admission"),
    _("platform"), _("isolation"), _("signals"), _("metering"), _("capabilities"),
    _("requires"), _("accepts"),
)  # fmt: skip
