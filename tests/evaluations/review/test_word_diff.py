"""A one-word edit of a text marks that word, not the whole paragraph (issue 31)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.review.diffs.engine import word_diff
from tests.evaluations.factories import approved, make_cast, small_catalog


def test_a_one_word_edit_is_one_word_removed_and_one_added():
    runs = word_diff(
        "HAMi shares, Volcano governs the queues.", "HAMi shares, Kueue governs the queues."
    )

    assert runs == [
        ("same", "HAMi shares, "),
        ("removed", "Volcano"),
        ("added", "Kueue"),
        ("same", " governs the queues."),
    ]


def test_the_runs_rebuild_both_texts():
    old, new = "one two three\nfour five", "one 2 three\nfour five six"
    runs = word_diff(old, new)

    assert "".join(text for kind, text in runs if kind != "added") == old
    assert "".join(text for kind, text in runs if kind != "removed") == new


@pytest.mark.django_db
def test_the_diff_page_strikes_only_the_changed_word(client):
    small_catalog()
    cast = make_cast()
    evaluation = approved(cast)
    evaluation_decide(
        evaluation=Evaluation.objects.get(pk=evaluation.pk),
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares, Volcano decides.",
    )
    client.force_login(cast.dave)

    page = client.get(reverse("evaluations:diff", args=[evaluation.pk])).content.decode()

    assert '<del class="diff-del">governs.</del><ins class="diff-ins">decides.</ins>' in page
    assert "<del>HAMi shares, Volcano governs.</del>" not in page
