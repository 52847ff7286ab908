"""Step 1's workload mix beyond its text box: the trace upload form, and the stored mix in one
line for the summaries (overview, diffs, report)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.engine.workload_mix import TRACE_MAX_BYTES, TRACE_MAX_LINES


def workload_mix_in_words(entries: list[dict[str, Any]] | None) -> str:
    """The stored mix in one line: how many kinds of task, tasks and GPUs asked."""
    entries = entries or []
    if not entries:
        return ""
    tasks = sum(item.get("tasks", 0) for item in entries)
    gpus = sum(
        item.get("tasks", 0) * item.get("gpus", 1) * item.get("gpu_milli", 1000) / 1000
        for item in entries
    )
    return gettext("%(kinds)s kinds of task, %(tasks)s tasks asking %(gpus)s GPUs") % {
        "kinds": len(entries),
        "tasks": f"{tasks:,}",
        "gpus": f"{gpus:,.1f}".removesuffix(".0"),
    }


def _trace_help() -> str:
    return gettext(
        "A pod list in the format of Alibaba's openb trace (name, cpu_milli, memory_mib, "
        "num_gpu, gpu_milli, gpu_spec, qos, …), optionally with tenant and workload columns; "
        "at most %(lines)s tasks and %(mb)s MB. Tasks of the same size are counted together "
        "into the workload mix above, which you can then edit."
    ) % {"lines": f"{TRACE_MAX_LINES:,}", "mb": TRACE_MAX_BYTES // (1024 * 1024)}


class TraceForm(forms.Form):
    """Step 1's trace upload: a pod list in the openb CSV format becomes the workload mix."""

    trace = forms.FileField(
        label=_("Trace (CSV)"),
        help_text=lazy(_trace_help, str)(),
    )
