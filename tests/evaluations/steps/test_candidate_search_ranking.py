"""Step 3's search ranks what the query names first (issue 42 item 4): "mig" gives the NVIDIA
MIG rows before Ascend's, "gang scheduling" the rows whose functions list `gang` before
gpushare's placement helper; a glossary phrase finds rows no substring match would."""

from __future__ import annotations

import pytest

from evaluations.selectors import placement_search

pytestmark = pytest.mark.django_db

MIG_ROWS = {
    "nvidia-mig/mig-manager",
    "nvidia-device-plugin/mig-single",
    "nvidia-device-plugin/mig-mixed",
    "hami/dynamic-mig",
    "nvidia-dra-driver-gpu/dynamic-mig",
}


def refs(text: str) -> list[str]:
    rows, _more = placement_search(text=text)
    return [row.ref for row in rows]


def test_mig_lists_the_mig_rows_before_ascend(builtin_catalog):
    found = refs("mig")

    first = found[: len(MIG_ROWS)]
    assert set(first) == MIG_ROWS
    ascend = [i for i, ref in enumerate(found) if ref.startswith("ascend")]
    assert not ascend or min(ascend) > len(MIG_ROWS)


def test_gang_scheduling_lists_gang_capable_rows_first(builtin_catalog):
    rows, _more = placement_search(text="gang scheduling")

    head = rows[:5]
    assert all("gang" in (row.functions or []) for row in head), [r.ref for r in head]
    assert "gpushare-scheduler-extender/scheduler-extender" not in [r.ref for r in rows[:5]]
    assert not [r for r in rows[:5] if r.project.slug == "hami"]


def test_a_glossary_phrase_finds_rows_a_substring_would_miss(builtin_catalog):
    assert "nvidia-device-plugin/time-slicing" in refs("time slicing")[:5]


def test_an_exact_project_name_comes_first(builtin_catalog):
    assert refs("kueue")[0] == "kueue/controller"
