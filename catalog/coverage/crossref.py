"""The cross-reference sweep (issue 27): search each catalog project's repository, at the release
its evidence is pinned to, for every other project's search terms, and group the hits for review.

Plain Python (no Django): `manage.py catalog_crossref` is the thin shell around it. Repositories
come from local bare git mirrors (`<mirrors>/<owner>+<name>/repo`, the layout the research tooling
writes); `git grep -n -I -F -i` runs once per repository at the resolved commit with every term.
Hand-written resolutions live in a decisions file and are merged into each run's review, so they
survive a rerun; a group without one is "unresolved" and fails `--check`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Trees that are other projects' code copied in, and files that only list dependencies' checksums.
SKIPPED_PATHS = (
    "vendor/",
    "third_party/",
    "third-party/",
    "node_modules/",
    "go.sum",
    "*.lock",
)
_EXCLUDES = (
    ":(exclude,glob)**/vendor/**",
    ":(exclude,glob)**/third_party/**",
    ":(exclude,glob)**/third-party/**",
    ":(exclude,glob)**/node_modules/**",
    ":(exclude,glob)**/go.sum",
    ":(exclude,glob)**/*.lock",
)
QUOTE_CHARS = 200
# Identifier kinds whose value names something another repository could mention.
_SEARCHED_KINDS = ("resource", "crd", "label", "annotation", "signal", "deviceclass")
_GITHUB = re.compile(r"https://github\.com/([^/]+)/([^/#]+)/(?:blob|tree)/([^/]+)/")
_MIN_TERM = 4


@dataclass(frozen=True)
class Repo:
    """One repository of a project and the refs its catalog entry is pinned to, best first."""

    slug: str  # owner/name
    refs: tuple[str, ...]


@dataclass
class Project:
    slug: str
    name: str
    repos: list[Repo]
    terms: dict[str, str]  # lower-cased term -> where it comes from
    unmirrored: str = ""  # why its repository has no mirror, from terms.yaml


@dataclass
class Searched:
    """Where one repository of a project was searched, or why it was not."""

    project: str
    repository: str
    ref: str = ""
    commit: str = ""
    note: str = ""
    searched: bool = False


@dataclass
class Group:
    searched: str
    other: str
    term: str
    source: str
    repository: str
    ref: str
    commit: str
    hits: list[str] = field(default_factory=list)
    resolution: dict | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.searched, self.other, self.term)


# --- the catalog side: projects, their releases and their terms ---------------------------------


def _repo_slug(url: str) -> str:
    match = re.match(r"https://github\.com/([^/]+)/([^/#?]+)", url or "")
    return f"{match.group(1)}/{match.group(2).removesuffix('.git')}" if match else ""


def _evidence_refs(project: dict, repo: str) -> list[str]:
    """The refs the project's evidence links into `repo` are pinned to, most used first."""
    counts: Counter[str] = Counter()
    for placement in project.get("placements", []):
        urls = [e.get("url", "") for e in placement.get("evidence", [])]
        urls += list((placement.get("detect") or {}).get("evidence", []))
        for url in urls:
            match = _GITHUB.match(url)
            if match and f"{match.group(1)}/{match.group(2)}".lower() == repo.lower():
                counts[match.group(3)] += 1
    return [ref for ref, _ in counts.most_common()]


def _identifier_terms(placement: dict) -> dict[str, str]:
    terms: dict[str, str] = {}
    for identifier in placement.get("provides", []):
        kind, _, value = identifier.partition(":")
        if kind not in _SEARCHED_KINDS:
            continue
        if kind == "crd":  # crd:group/version/Kind -> the API group
            value = value.split("/", 1)[0]
        elif kind == "signal":  # signal:family/metric_name -> the metric name
            value = value.rsplit("/", 1)[-1]
        terms[value] = identifier
    detect = placement.get("detect") or {}
    for driver in detect.get("dra_drivers", []):
        terms[driver] = "deviceclass/driver " + driver
    for image in detect.get("images", []):
        terms[image] = "image " + image
    return terms


def load_projects(data_dir: Path, terms_file: Path) -> list[Project]:
    """Every project of catalog/data/*.yaml with the repositories and terms the sweep uses."""
    config = yaml.safe_load(terms_file.read_text(encoding="utf-8")) or {}
    generic = {term.lower() for term in config.get("generic", [])}
    projects = []
    for path in sorted(data_dir.glob("*.yaml")):
        bundle = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for entry in bundle.get("projects", []):
            slug = entry["slug"]
            repos = []
            for extra in [{"repository": entry.get("repository", "")}] + (
                config.get("repositories", {}).get(slug, [])
            ):
                repo = _repo_slug(extra["repository"])
                if not repo:
                    continue
                versions = [
                    str(p["project_version"])
                    for p in entry.get("placements", [])
                    if p.get("project_version")
                ]
                refs = [*versions[:1], *_evidence_refs(entry, repo)]
                repos.append(Repo(repo, tuple(dict.fromkeys(refs))))
            raw: dict[str, str] = {}
            for placement in entry.get("placements", []):
                raw.update(_identifier_terms(placement))
            for name in config.get("names", {}).get(slug, []):
                raw[name] = "name"
            for term in config.get("extra", {}).get(slug, []):
                raw[term] = "extra term"
            for repo in repos:
                raw[repo.slug] = "repository"
            terms = {
                term.lower(): source
                for term, source in raw.items()
                if len(term) >= _MIN_TERM and term.lower() not in generic and "*" not in term
            }
            why = config.get("unmirrored", {}).get(slug, "")
            projects.append(Project(slug, entry.get("name", slug), repos, terms, why))
    return projects


# --- the git side -------------------------------------------------------------------------------


def _git(gitdir: Path, *args: str) -> subprocess.CompletedProcess:
    git = shutil.which("git") or "git"
    return subprocess.run(  # noqa: S603 - git with the sweep's own arguments, no shell
        [git, f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=False
    )


def mirror_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def resolve_ref(gitdir: Path, refs: tuple[str, ...]) -> tuple[str, str, str]:
    """(ref, commit, note): the first catalogued ref the mirror has, else its HEAD, said so."""
    for ref in refs:
        for spec in (f"refs/tags/{ref}", ref):
            done = _git(gitdir, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
            if done.returncode == 0:
                return ref, done.stdout.strip(), ""
    head = _git(gitdir, "rev-parse", "HEAD^{commit}").stdout.strip()
    wanted = ", ".join(refs) or "none"
    return "HEAD", head, f"catalogued ref(s) {wanted} not in the mirror: searched its HEAD"


def grep(gitdir: Path, commit: str, terms: list[str]) -> list[tuple[str, int, str]]:
    """(path, line number, text) of every line holding one of `terms` (fixed, case-insensitive)."""
    if not terms:
        return []
    args = ["grep", "-n", "-I", "-F", "-i", "--no-color"]
    for term in terms:
        args += ["-e", term]
    done = _git(gitdir, *args, commit, "--", ".", *_EXCLUDES)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"git grep failed in {gitdir}: {done.stderr.strip()}")
    found = []
    prefix = f"{commit}:"
    for line in done.stdout.splitlines():
        if not line.startswith(prefix):
            continue
        path, number, text = line[len(prefix) :].split(":", 2)
        found.append((path, int(number), text))
    return found


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


# --- the sweep ----------------------------------------------------------------------------------


@dataclass
class Sweep:
    searched: list[Searched]
    groups: list[Group]
    same_repository: list[tuple[str, str]]


def sweep(projects: list[Project], mirrors: Path) -> Sweep:
    """Search every mirrored repository for every other project's terms.

    A line that holds several terms of one other project counts once, under the longest of them
    (`nvidia.com/gpumem` rather than `project-hami`); projects sharing a repository are not
    searched for each other (their relation is not a cross-reference)."""
    searched: list[Searched] = []
    groups: dict[tuple[str, str, str], Group] = {}
    same: set[tuple[str, str]] = set()
    for project in projects:
        own = {repo.slug.lower() for repo in project.repos}
        others = []
        for other in projects:
            if other.slug == project.slug:
                continue
            if own & {repo.slug.lower() for repo in other.repos}:
                same.add((project.slug, other.slug))
                continue
            others.append(other)
        for repo in project.repos:
            record = Searched(project.slug, repo.slug)
            searched.append(record)
            gitdir = mirror_dir(mirrors, repo.slug)
            if gitdir is None:
                record.note = f"no mirror of {repo.slug} under {mirrors}"
                if project.unmirrored:
                    record.note += f": {project.unmirrored}"
                continue
            record.ref, record.commit, record.note = resolve_ref(gitdir, repo.refs)
            if not record.commit:
                record.note = f"mirror of {repo.slug} has no commit"
                continue
            record.searched = True
            terms = sorted({t for other in others for t in other.terms})
            for path, number, text in grep(gitdir, record.commit, terms):
                low = text.lower()
                for other in others:
                    matched = [t for t in other.terms if t in low]
                    if not matched:
                        continue
                    term = max(matched, key=lambda t: (len(t), t))
                    key = (project.slug, other.slug, term)
                    group = groups.get(key)
                    if group is None:
                        group = groups[key] = Group(
                            *key, other.terms[term], repo.slug, record.ref, record.commit
                        )
                    group.hits.append(f"{path}:{number}: {_quote(text)}")
    ordered = sorted(groups.values(), key=lambda g: g.key)
    return Sweep(searched, ordered, sorted(same))


# --- decisions and the review file --------------------------------------------------------------


def load_decisions(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def _valid(decision: dict) -> bool:
    if decision.get("resolution") == "dismissed":
        return bool(str(decision.get("reason", "")).strip())
    if decision.get("resolution") == "relation":
        relation = decision.get("relation") or {}
        return bool(relation.get("a") and relation.get("b") and relation.get("verdict"))
    return False


# What a decision hands its hit groups: the resolution, and (issue 43) the record of its re-check
# against the charts, go.mod and embedded packages, with the reason a now-relation once had.
_CARRIED = ("resolution", "reason", "relation", "recheck", "dismissed_before")


def merge(groups: list[Group], decisions: list[dict]) -> list[dict]:
    """Attach each group's resolution: a decision for its (searched, other, term), else one for
    (searched, other, '*') — a pair-level decision — else none. Returns the decisions that matched
    no group (stale after a catalog change), so the command can report them."""
    exact = {}
    pair = {}
    for decision in decisions:
        key = (decision.get("searched"), decision.get("other"), str(decision.get("term", "")))
        if key[2] == "*":
            pair[key[:2]] = decision
        else:
            exact[(key[0], key[1], key[2].lower())] = decision
    used: set[int] = set()
    for group in groups:
        decision = exact.get(group.key) or pair.get(group.key[:2])
        group.resolution = None
        if decision is not None and _valid(decision):
            used.add(id(decision))
            group.resolution = {k: decision[k] for k in _CARRIED if k in decision}
    return [d for d in decisions if id(d) not in used]


def unresolved(groups: list[Group]) -> list[Group]:
    return [group for group in groups if group.resolution is None]


def counts(result: Sweep) -> dict[str, int]:
    projects = {s.project for s in result.searched}
    searched = {s.project for s in result.searched if s.searched}
    resolved = [g for g in result.groups if g.resolution]
    return {
        "projects": len(projects),
        "projects_searched": len(searched),
        "projects_not_searched": len(projects - searched),
        "hit_groups": len(result.groups),
        "hits": sum(len(g.hits) for g in result.groups),
        "relation_groups": sum(1 for g in resolved if g.resolution["resolution"] == "relation"),
        "relations": len(
            {
                (g.resolution["relation"]["a"], g.resolution["relation"]["b"])
                for g in resolved
                if g.resolution["resolution"] == "relation"
            }
        ),
        "dismissed_groups": sum(1 for g in resolved if g.resolution["resolution"] == "dismissed"),
        "unresolved_groups": len(result.groups) - len(resolved),
    }


def review_document(result: Sweep, date: str) -> dict:
    return {
        "generated_by": "python manage.py catalog_crossref",
        "date": date,
        "skipped_paths": list(SKIPPED_PATHS),
        "counts": counts(result),
        "repositories": [
            {
                "project": s.project,
                "repository": s.repository,
                "ref": s.ref,
                "commit": s.commit,
                **({"note": s.note} if s.note else {}),
            }
            for s in result.searched
            if s.searched
        ],
        "not_searched": [
            {"project": s.project, "repository": s.repository, "reason": s.note}
            for s in result.searched
            if not s.searched
        ],
        "same_repository_pairs_not_searched": [f"{a} / {b}" for a, b in result.same_repository],
        "groups": [
            {
                "searched": g.searched,
                "other": g.other,
                "term": g.term,
                "term_from": g.source,
                "repository": g.repository,
                "ref": g.ref,
                "commit": g.commit,
                "resolution": g.resolution or "unresolved",
                "hits": g.hits,
            }
            for g in result.groups
        ],
    }


def dump(document: dict) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


REVIEW_FILE = Path(__file__).resolve().parents[1] / "data" / "crossref" / "review.yaml"


def review_summary(path: Path = REVIEW_FILE) -> dict | None:
    """The review file's head (date, counts, repositories, not searched), read without its hit
    groups: they come last in the file (review_document's order) and run to megabytes."""
    if not path.is_file():
        return None
    head = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("groups:"):
                break
            head.append(line)
    return yaml.safe_load("".join(head))


def sweep_markdown(summary: dict | None) -> list[str]:
    """docs/catalog.md's "Cross-reference sweep" section, from the review file's head."""
    lines = ["", "## Cross-reference sweep", ""]
    if not summary:
        return [*lines, "Not run yet: `python manage.py catalog_crossref`."]
    c = summary["counts"]
    lines += [
        f"Run on {summary['date']} by `python manage.py catalog_crossref` (options "
        "`--mirrors DIR`, default `/work/.mirror`; `--check` fails while a hit group has no "
        "resolution). Each project's repository is searched at its catalogued release with "
        "`git grep -n -I -F -i` for every other project's terms: the API groups of its CRDs, its "
        "resource names, labels, annotations, DeviceClass (DRA driver) names, images and signal "
        "names, taken from its rows, plus the names, libraries and prefixes in "
        "`catalog/data/crossref/terms.yaml`. Terms that every GPU project names "
        "(`nvidia.com/gpu`, `amd.com/gpu`, the bare `nvidia.com` and `amd.com` groups, "
        "`gpu-operator`, `device-plugin`, `kubernetes/kubernetes`) are not searched: the "
        "relations through them are the ones the provides/accepts identifiers already model. A "
        "line holding several terms of one project counts once, under its longest term. Projects "
        "sharing a repository are not searched for each other.",
        "",
        "Skipped paths: " + ", ".join(f"`{p}`" for p in summary["skipped_paths"]) + ", and binary "
        "files; blobs a mirror does not hold (large files the snapshot left out) cannot be read.",
        "",
        f"Projects {c['projects']}: searched {c['projects_searched']}, not searched "
        f"{c['projects_not_searched']}; hit groups {c['hit_groups']}, hits {c['hits']}; groups "
        f"resolved as a documented relation {c['relation_groups']} "
        f"(naming {c['relations']} distinct documented relations), "
        f"dismissed with a reason {c['dismissed_groups']}, unresolved {c['unresolved_groups']}.",
        "",
        "Hits and resolutions: `catalog/data/crossref/review.yaml` (written by the command); the "
        "hand-written resolutions it merges: `catalog/data/crossref/decisions.yaml`, keyed by "
        "(searched project, other project, term), or `*` for every term of that pair. A relation "
        "resolution names its entry in `tests/catalog/documented_relations.yaml`.",
        "",
        "| project | repository | ref | commit |",
        "|---|---|---|---|",
    ]
    for repo in summary["repositories"]:
        ref = repo["ref"] + (" (catalogued ref not in the mirror)" if repo.get("note") else "")
        lines.append(
            f"| `{repo['project']}` | {repo['repository']} | {ref} | `{repo['commit'][:12]}` |"
        )
    for missing in summary["not_searched"]:
        lines.append(
            f"| `{missing['project']}` | {missing['repository']} | not searched: "
            f"{missing['reason']} | |"
        )
    return lines
