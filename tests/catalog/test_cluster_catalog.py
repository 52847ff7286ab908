"""What the cluster check reads from the catalog, at any catalog size (issue 41 H1).

At 100,000 placement rows `check_cluster` (the command, and the cluster and configuration pages,
which call the same selector) grew its process by 1.7 GB: each row's `detect` signature was
decoded into an object of its own. Rows copied from the same kind of component carry the same
signature, so a signature is now decoded once per distinct value and shared (bench/scale
--huge: 1,796 → 509 MB peak).
"""

from __future__ import annotations

from catalog.models import PlacementRow
from catalog.selectors import cluster_catalog
from tests.factories import apply, bundle, scaled_projects


def test_the_check_reads_each_rows_signature_and_evidence(builtin_catalog):
    rows, signatures, evidence = cluster_catalog()

    stored = PlacementRow.objects.values_list("project__slug", "key", "detect", "evidence")
    assert {row.id for row in rows} == {f"{slug}/{key}" for slug, key, _d, _e in stored}
    for slug, key, detect, sources in stored:
        row_id = f"{slug}/{key}"
        assert signatures.get(row_id) == (detect or None)
        urls = [item["url"] if isinstance(item, dict) else item for item in sources or ()]
        assert evidence[row_id] == [url for url in urls if url]
    assert list(signatures) == [  # catalog order settles ties between modes
        f"{slug}/{key}"
        for slug, key, detect in PlacementRow.objects.order_by("pk").values_list(
            "project__slug", "key", "detect"
        )
        if detect
    ]


def test_rows_with_the_same_signature_share_one_decoded_copy(db):
    apply(bundle(*scaled_projects(rows=400, projects=40)))

    _rows, signatures, evidence = cluster_catalog()

    distinct = {repr(sorted(value.items())) for value in signatures.values()}
    assert len(signatures) > 2 * len(distinct), "the scaled catalog repeats its signatures"
    assert len({id(value) for value in signatures.values()}) == len(distinct)
    assert len({id(urls) for urls in evidence.values()}) <= len(
        {tuple(urls) for urls in evidence.values()}
    )
