"""The generated configuration is cached per decision as it stands: read again, it is not
generated again; any change of what the generators read (pools, step 1, a refused name put
right) gives the new files at once, never the cached ones."""

from __future__ import annotations

import pytest
import yaml

from evaluations.configgen import selectors
from evaluations.configgen.selectors import ConfigUnavailable, evaluation_config
from evaluations.decisions.models import Decision
from evaluations.models import Evaluation

pytestmark = pytest.mark.django_db


@pytest.fixture
def generations(monkeypatch):
    """How many times the generators ran."""
    calls = []
    real = selectors.generate

    def counted(facts):
        calls.append(facts)
        return real(facts)

    monkeypatch.setattr(selectors, "generate", counted)
    return calls


def _queues(files) -> list[dict]:
    file = next(f for f in files if f.path == "kueue/cluster-queues.yaml")
    return list(yaml.safe_load_all(file.content))


def test_a_second_read_is_not_generated_again_and_gives_the_same_files(approved, generations):
    first = evaluation_config(approved)
    second = evaluation_config(Evaluation.objects.get(pk=approved.pk))

    assert len(generations) == 1
    assert [(f.path, f.kind, f.content) for f in second] == [
        (f.path, f.kind, f.content) for f in first
    ]
    # The cached files still carry their documents: the drift check reads them.
    assert [f.documents and f.documents[0].data for f in second] == [
        f.documents and f.documents[0].data for f in first
    ]


def test_a_changed_step_1_gives_new_files_at_once(approved, generations):
    before = _queues(evaluation_config(approved))
    profile = dict(approved.profile, tenant_count=5)
    Evaluation.objects.filter(pk=approved.pk).update(profile=profile)

    after = _queues(evaluation_config(Evaluation.objects.get(pk=approved.pk)))

    assert len(generations) == 2
    assert len(after) == 5 != len(before)


def test_a_refusal_put_right_is_not_remembered(approved, generations):
    # Two pool names that write as one label value ("Bad Pool" and "bad-pool" are both
    # bad-pool once slugged, issue 42) are refused before anything is generated or cached.
    decision = Decision.objects.get(evaluation=approved)
    good, rows = decision.pools, list(decision.rows)
    clash = {"Bad Pool": rows[:1], "bad-pool": rows[1:]}
    Decision.objects.filter(pk=decision.pk).update(pools=clash)
    for _read in range(2):
        with pytest.raises(ConfigUnavailable, match="same label value"):
            evaluation_config(approved)
    assert generations == []

    Decision.objects.filter(pk=decision.pk).update(pools=good)

    assert evaluation_config(approved)
    assert len(generations) == 1


def test_changed_generator_code_is_never_served_the_old_files(approved, generations, monkeypatch):
    """The key names a digest of the generators' code, so a deploy that changes the code misses
    the files the old code cached."""
    evaluation_config(approved)
    monkeypatch.setattr(selectors, "_generators_digest", lambda: "a-new-deploy")

    evaluation_config(approved)

    assert len(generations) == 2


def test_the_code_digest_changes_with_the_generators_source():
    digest = selectors._generators_digest()

    assert len(digest) == 16
    source = selectors.Path(selectors.__file__).read_bytes()
    assert source  # the digest reads this package's files, this one among them
    selectors._generators_digest.cache_clear()
    assert selectors._generators_digest() == digest  # stable while the code is
