"""The cross-reference sweep (issue 27 item 1) on a tiny synthetic catalog and git mirrors made in
tmp_path: hits at the catalogued tag, the skipped trees, resolutions that survive a rerun, and
`--check`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from catalog.coverage import crossref

GIT = shutil.which("git") or "git"
TERMS = {
    "generic": ["nvidia.com/gpu"],
    "names": {"alpha": ["alpha-operator"]},
    "extra": {"alpha": ["libalpha.so"]},
}


def _bundle(slug: str, repo: str, version: str, provides: list[str]) -> dict:
    return {
        "format": "ecomap.bundle/v1",
        "projects": [
            {
                "slug": slug,
                "name": slug.title(),
                "repository": f"https://github.com/{repo}",
                "placements": [
                    {
                        "key": "main",
                        "project_version": version,
                        "provides": provides,
                        "evidence": [
                            {"url": f"https://github.com/{repo}/blob/{version}/README.md#L1"}
                        ],
                    }
                ],
            }
        ],
    }


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(  # noqa: S603 - git with the test's own arguments
        [GIT, "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _mirror(mirrors: Path, repo: str, files: dict[str, str], tag: str | None) -> str:
    """A bare mirror at <mirrors>/<owner>+<name>/repo whose `tag` holds `files`; a later commit
    on top (which the sweep must not read) adds one more hit."""
    work = mirrors.parent / "work" / repo.replace("/", "+")
    work.mkdir(parents=True)
    _git(work, "init", "-q", "-b", "main")
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "release")
    tagged = _git(work, "rev-parse", "HEAD")
    if tag:
        _git(work, "tag", tag)
        (work / "later.md").write_text("alpha.example.com after the release\n", encoding="utf-8")
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "-m", "after the release")
    _git(
        mirrors, "clone", "-q", "--bare", str(work), str(mirrors / repo.replace("/", "+") / "repo")
    )
    return tagged


@pytest.fixture
def catalog(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    bundles = {
        "alpha": _bundle(
            "alpha",
            "acme/alpha",
            "v1.0.0",
            ["resource:alpha.example.com/vgpu", "crd:alpha.example.com/v1/Pool", "label:alpha/x"],
        ),
        "beta": _bundle("beta", "acme/beta", "v2.0.0", ["resource:nvidia.com/gpu"]),
        "gamma": _bundle("gamma", "acme/gamma", "v3.0.0", ["capability:quota"]),
    }
    for slug, bundle in bundles.items():
        (data / f"{slug}.yaml").write_text(yaml.safe_dump(bundle), encoding="utf-8")
    terms = tmp_path / "terms.yaml"
    terms.write_text(yaml.safe_dump(TERMS), encoding="utf-8")
    commit = _mirror(
        mirrors,
        "acme/beta",
        {
            "main.go": "package main\n// requests alpha.example.com/vgpu and nvidia.com/gpu\n",
            "docs/setup.md": "Install the Alpha-Operator first.\npreload /usr/lib/libalpha.so\n",
            "vendor/github.com/acme/alpha/x.go": "alpha.example.com/vgpu\n",
            "third_party/alpha.md": "alpha-operator\n",
            "go.sum": "github.com/acme/alpha-operator v1 h1:x\n",
            "web/node_modules/alpha/index.js": "libalpha.so\n",
            "logo.png": "\0binary alpha-operator\0",
        },
        tag="v2.0.0",
    )
    # alpha's repository is mirrored without the catalogued tag; gamma is not mirrored at all.
    _mirror(mirrors, "acme/alpha", {"README.md": "no mention of the others\n"}, tag=None)
    return data, mirrors, terms, commit


def _run(catalog):
    data, mirrors, terms, _ = catalog
    return crossref.sweep(crossref.load_projects(data, terms), mirrors)


def test_the_sweep_finds_the_other_projects_terms_at_the_catalogued_release(catalog):
    *_, commit = catalog
    result = _run(catalog)

    groups = {g.key: g for g in result.groups}
    assert set(groups) == {
        ("beta", "alpha", "alpha.example.com/vgpu"),
        ("beta", "alpha", "alpha-operator"),
        ("beta", "alpha", "libalpha.so"),
    }
    resource = groups[("beta", "alpha", "alpha.example.com/vgpu")]
    assert resource.hits == ["main.go:2: // requests alpha.example.com/vgpu and nvidia.com/gpu"]
    assert (resource.ref, resource.commit) == ("v2.0.0", commit)
    assert resource.source == "resource:alpha.example.com/vgpu"
    # the name matches case-insensitively; the commit after the tag is not read
    assert groups[("beta", "alpha", "alpha-operator")].hits == [
        "docs/setup.md:1: Install the Alpha-Operator first."
    ]
    # a generic term is never searched: nothing of beta is found in alpha's repository
    assert not [g for g in result.groups if g.other == "beta"]


def test_vendored_trees_checksums_and_binaries_are_skipped(catalog):
    hits = [hit for g in _run(catalog).groups for hit in g.hits]

    assert not [h for h in hits if h.startswith(("vendor/", "third_party/", "go.sum", "web/"))]
    assert not [h for h in hits if h.startswith("logo.png")]
    assert len(hits) == 3


def test_a_missing_tag_falls_back_to_head_and_an_unmirrored_project_is_listed(catalog):
    result = _run(catalog)

    by_project = {s.project: s for s in result.searched}
    assert by_project["alpha"].searched and by_project["alpha"].ref == "HEAD"
    assert "v1.0.0" in by_project["alpha"].note
    assert not by_project["gamma"].searched
    assert "no mirror of acme/gamma" in by_project["gamma"].note
    document = crossref.review_document(result, "2026-12-02")
    assert document["not_searched"] == [
        {"project": "gamma", "repository": "acme/gamma", "reason": by_project["gamma"].note}
    ]
    assert document["counts"]["projects_not_searched"] == 1


def test_resolutions_survive_a_rerun_and_check_fails_until_every_group_has_one(catalog, tmp_path):
    data, mirrors, terms, _ = catalog
    decisions = tmp_path / "decisions.yaml"
    output = tmp_path / "review.yaml"
    options = {
        "mirrors": mirrors,
        "data": data,
        "terms": terms,
        "decisions": decisions,
        "output": output,
    }
    decisions.write_text(
        yaml.safe_dump(
            [
                {
                    "searched": "beta",
                    "other": "alpha",
                    "term": "alpha.example.com/vgpu",
                    "resolution": "relation",
                    "relation": {"a": "alpha/main", "b": "beta/main", "verdict": "composes"},
                },
                {
                    "searched": "beta",
                    "other": "alpha",
                    "term": "libalpha.so",
                    "resolution": "dismissed",
                    "reason": "install note only",
                },
            ]
        ),
        encoding="utf-8",
    )

    with pytest.raises(CommandError, match="1 hit groups have no resolution"):
        call_command("catalog_crossref", check=True, **options)
    assert not output.exists()  # --check writes nothing

    call_command("catalog_crossref", **options)
    call_command("catalog_crossref", **options)  # a rerun keeps the hand-written resolutions
    review = yaml.safe_load(output.read_text(encoding="utf-8"))
    resolutions = {g["term"]: g["resolution"] for g in review["groups"]}
    assert resolutions["alpha.example.com/vgpu"]["relation"]["verdict"] == "composes"
    assert resolutions["libalpha.so"] == {"resolution": "dismissed", "reason": "install note only"}
    assert resolutions["alpha-operator"] == "unresolved"

    # a pair-level decision ('*') resolves the rest; a dismissal without a reason does not count
    more = yaml.safe_load(decisions.read_text(encoding="utf-8"))
    decisions.write_text(
        yaml.safe_dump(
            [*more, {"searched": "beta", "other": "alpha", "term": "*", "resolution": "dismissed"}]
        ),
        encoding="utf-8",
    )
    with pytest.raises(CommandError):
        call_command("catalog_crossref", check=True, **options)
    more.append(
        {
            "searched": "beta",
            "other": "alpha",
            "term": "*",
            "resolution": "dismissed",
            "reason": "setup text",
        }
    )
    decisions.write_text(yaml.safe_dump(more), encoding="utf-8")
    call_command("catalog_crossref", check=True, **options)


# The committed sweep (catalog/data/crossref/): every hit group resolved, every relation resolution
# an entry of the documented-relations suite with the same verdict.

CROSSREF = Path(__file__).resolve().parents[3] / "catalog" / "data" / "crossref"
RELATIONS = Path(__file__).resolve().parents[1] / "documented_relations.yaml"


def test_every_relation_resolution_is_a_documented_relation():
    documented = {
        frozenset((r["a"], r["b"])): r["verdict"]
        for r in yaml.safe_load(RELATIONS.read_text(encoding="utf-8"))
    }
    decisions = crossref.load_decisions(CROSSREF / "decisions.yaml")

    relations = [d["relation"] for d in decisions if d["resolution"] == "relation"]
    assert relations
    for relation in relations:
        pair = frozenset((relation["a"], relation["b"]))
        assert documented.get(pair) == relation["verdict"], relation
    assert all(
        str(d.get("reason", "")).strip() for d in decisions if d["resolution"] == "dismissed"
    )


def test_the_committed_review_has_every_hit_group_resolved():
    summary = crossref.review_summary(CROSSREF / "review.yaml")

    counts = summary["counts"]
    assert counts["unresolved_groups"] == 0
    assert counts["hit_groups"] == counts["relation_groups"] + counts["dismissed_groups"] > 0
    # kubernetes/kubernetes (DRA core and workload-aware scheduling) and run-ai/docs exceed the
    # mirror limit; every other project is searched.
    assert {m["project"] for m in summary["not_searched"]} == {
        "kubernetes-dra",
        "kubernetes-workload-scheduling",
        "runai",
    }


def test_a_named_deviceclass_a_row_provides_is_searched(catalog):
    # A DRA driver's `deviceclass:<name>` is how a scheduler's quota or docs name that driver
    # (Volcano's quota guide names hami-core-gpu.project-hami.io); it must be a search term.
    data, _, terms, _ = catalog
    bundle = _bundle("delta", "acme/delta", "v1.0.0", ["deviceclass:gpu.delta.example.com"])
    (data / "delta.yaml").write_text(yaml.safe_dump(bundle), encoding="utf-8")
    delta = next(p for p in crossref.load_projects(data, terms) if p.slug == "delta")
    assert delta.terms["gpu.delta.example.com"] == "deviceclass:gpu.delta.example.com"


def test_every_passing_mention_or_follow_up_dismissal_records_its_recheck():
    # Issue 43: each was re-checked against the charts, go.mod and embedded packages, not prose.
    decisions = crossref.load_decisions(CROSSREF / "decisions.yaml")
    rechecked = [
        d
        for d in decisions
        if d["resolution"] == "dismissed"
        and ("passing mention" in d["reason"] or "follow-up" in d["reason"])
    ]

    assert rechecked
    assert all(str(d.get("recheck", "")).startswith("2026-12-07: ") for d in rechecked)
    review = (CROSSREF / "review.yaml").read_text(encoding="utf-8")
    assert review.count("recheck: ") >= len(rechecked)
