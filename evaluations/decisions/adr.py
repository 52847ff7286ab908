"""The decision record of an evaluation (MADR layout), as data and as Markdown.

Everything is said in words of the active language (vocabulary labels, the engines' sentences
rendered), never in stored keys; everything a person or a vendor typed is escaped so it cannot
add headings, table cells, links or HTML to the record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from django.urls import reverse
from django.utils.translation import gettext as _

from catalog.engine.text import render
from catalog.evidence import evidence_label
from evaluations import selectors
from evaluations.audit.selectors import EDIT_ACTIONS
from evaluations.models import Evaluation
from evaluations.review.choices import Verdict
from evaluations.steps.fleet_words import FLEET_LABELS, fleet_in_words
from evaluations.steps.forms import (
    ISOLATION_CHOICES,
    LEVEL_CHOICES,
    OBJECTIVE_CHOICES,
    PRIORITY_LABELS,
    TENANCY_CHOICES,
    WORKLOAD_CHOICES,
)

FORMAT = "ecomap.adr/v1"


def say(text: Any) -> str:
    """An engine sentence in the reader's language."""
    return render(text, _)


# ---------------------------------------------------------------------------------------------
# Markdown safety

# Inline characters that start emphasis, code, links, table cells or HTML.
_INLINE = re.compile(r"([\\`*_\[\]|<>])")
# What makes a line a heading, a list item, a quote, a setext underline or a numbered item.
_LINE_START = re.compile(r"^([#+=-])")
_NUMBERED = re.compile(r"^(\d+)([.)])")


def md_inline(text: Any) -> str:
    """User or catalog text safe on one Markdown line: one line, markup characters escaped."""
    line = " ".join(str(text or "").split())
    line = _INLINE.sub(r"\\\1", line)
    line = _NUMBERED.sub(r"\1\\\2", line)
    return _LINE_START.sub(r"\\\1", line)


def md_lines(text: Any) -> list[str]:
    """Multi-line user text as safe lines, blank lines dropped (risks, checks: one per line)."""
    return [md_inline(line) for line in str(text or "").splitlines() if line.strip()]


def md_url(url: str) -> str | None:
    """An http(s) address fit for a Markdown link target, or None (no link is made)."""
    url = str(url or "").strip()
    if urlsplit(url).scheme not in ("http", "https"):
        return None
    return quote(url, safe=":/?#@!$&'*+,;=%~-._[]")


def md_link(label: str, url: str) -> str:
    target = md_url(url)
    return f"[{md_inline(label)}]({target})" if target else md_inline(label)


# ---------------------------------------------------------------------------------------------
# Gathering


def _labels(*choices) -> dict[str, str]:
    return {key: str(label) for group in choices for key, label in group}


_VERDICT_WORDS = {
    "contains": lambda: _("contains"),
    "composes": lambda: _("compose"),
    "incomparable": lambda: _("incomparable"),
    "complements": lambda: _("complement"),
    "independent": lambda: _("independent"),
}


def _drivers(profile: dict[str, Any]) -> list[dict[str, Any]]:
    """The step-1 answers that drive the choice, in words."""
    answers = _labels(OBJECTIVE_CHOICES, ISOLATION_CHOICES, TENANCY_CHOICES)
    levels = _labels(LEVEL_CHOICES)
    missing = _("not answered")
    target = profile.get("p99_target_ms")
    drivers = [
        {
            "driver": _("Primary objective"),
            "value": answers.get(profile.get("primary_objective"), missing),
        },
        {
            "driver": _("P99 target"),
            "value": f"{target:g} ms" if isinstance(target, int | float) else missing,
        },
        {
            "driver": _("Jitter tolerance"),
            "value": levels.get(profile.get("jitter_tolerance"), missing),
        },
        {
            "driver": _("Isolation requirement"),
            "value": answers.get(profile.get("isolation"), missing),
        },
        {"driver": _("Tenancy"), "value": answers.get(profile.get("tenancy"), missing)},
    ]
    ranked = [str(PRIORITY_LABELS.get(p, p)) for p in profile.get("priorities") or []]
    drivers.append({"driver": _("Priorities, most important first"), "ranked": ranked})
    # The cluster as it is (profile v2), when said: what the stack has to run on and serve.
    drivers += [
        {"driver": str(FLEET_LABELS[name]), "value": fleet_in_words(name, profile[name])}
        for name in ("node_groups", "tenants", "installed")
        if profile.get(name)
    ]
    return drivers


def _problem(evaluation: Evaluation) -> str:
    profile = evaluation.profile or {}
    workloads = _labels(WORKLOAD_CHOICES)
    answers = _labels(OBJECTIVE_CHOICES, TENANCY_CHOICES, ISOLATION_CHOICES)
    missing = _("not answered")
    kinds = ", ".join(workloads.get(k, k) for k in profile.get("workload_types") or []) or missing
    return _(
        "Team %(team)s chooses a GPU stack on Kubernetes for “%(title)s”. Workloads: "
        "%(workloads)s; tenancy: %(tenancy)s; primary objective: %(objective)s; isolation "
        "required: %(isolation)s. Which projects, on which layers, serve this workload, and "
        "what is each responsible for?"
    ) % {
        "team": evaluation.team.name,
        "title": evaluation.title,
        "workloads": kinds,
        "tenancy": answers.get(profile.get("tenancy"), missing),
        "objective": answers.get(profile.get("primary_objective"), missing),
        "isolation": answers.get(profile.get("isolation"), missing),
    }


def _verdict_words(review, verdicts: dict[str, Any]) -> str:
    verdict = str(verdicts.get(review.verdict, review.verdict))
    if review.voided_at is None:
        return verdict
    return _("%(verdict)s (no longer counts: %(reason)s)") % {
        "verdict": verdict,
        "reason": _(review.void_reason),  # one of the VOID_ phrases, translated where shown
    }


def _people(evaluation: Evaluation) -> tuple[list[str], list[dict[str, Any]]]:
    """Who wrote the evaluation (creator first, then each editor in order) and who reviewed it."""
    deciders = [evaluation.created_by.get_username()] if evaluation.created_by else []
    entries = (
        evaluation.audit.filter(action__in=EDIT_ACTIONS)
        .exclude(actor=None)
        .select_related("actor")
        .order_by("id")
    )
    for entry in entries:
        name = entry.actor.get_username()
        if name not in deciders:
            deciders.append(name)
    verdicts = dict(Verdict.choices)
    reviewers = [
        {
            "reviewer": review.reviewer.get_username() if review.reviewer else "—",
            "verdict": _verdict_words(review, verdicts),
            "revision": review.revision,
            "date": review.created_at.date().isoformat(),
        }
        for review in selectors.reviews_for(evaluation).order_by("created_at", "id")
    ]
    return deciders, reviewers


def _row_words(row) -> dict[str, Any]:
    return {
        "ref": row.ref,
        "project": row.project.name,
        "component": row.component or row.key,
        "layer": row.layer.name,
    }


def _options(evaluation: Evaluation) -> dict[str, Any]:
    comparison = selectors.comparison_for(evaluation)
    by_layer: dict[str, dict[str, Any]] = {}
    names, projects = {}, {}
    for candidate in comparison.candidates:
        row = candidate.row
        names[row.ref] = f"{row.project.name} · {row.component or row.key}"
        projects[row.project.slug] = row.project.name
        layer = by_layer.setdefault(
            row.layer.key, {"layer": row.layer.name, "position": row.layer.position, "rows": []}
        )
        layer["rows"].append(
            {
                **_row_words(row),
                "units": [unit.name for unit in row.resource_units.all()],
                "enforcement_points": [p.name for p in candidate.enforcement_points.all()],
                "alternative_group": candidate.alternative_group,
                "promise": candidate.boundary_promise,
                "non_promise": candidate.boundary_non_promise,
            }
        )
    facts = comparison.facts
    return {
        "by_layer": [
            {"layer": layer["layer"], "candidates": layer["rows"]}
            for layer in sorted(by_layer.values(), key=lambda item: item["position"])
        ],
        "alternative_groups": [
            {"group": group, "candidates": [names.get(ref, ref) for ref in refs]}
            for group, refs in sorted(comparison.alternative_groups.items())
        ],
        "misjudgements": [say(warning.message) for warning in comparison.misjudgements],
        "verdicts": [
            *(
                {"verdict": _("conflict"), "between": [names.get(c.a, c.a), names.get(c.b, c.b)],
                 "reason": say(c.message)}
                for c in facts.conflicts
            ),
            *(
                {"verdict": _("compete"), "between": [names.get(i, i) for i in g.rows],
                 "reason": say(g.title)}
                for g in facts.groups
            ),
            *(
                {"verdict": _VERDICT_WORDS.get(p.verdict, lambda v=p.verdict: v)(),
                 "between": [projects.get(slug, slug) for slug in p.projects],
                 "reason": say(p.summary)}
                for p in facts.pairs
            ),
        ],
    }  # fmt: skip


def _stack_check(evaluation: Evaluation) -> dict[str, Any] | None:
    report = selectors.decision_report(evaluation)
    if report is None:
        return None
    pool = _("pool")
    return {
        "ok": report.ok,
        "gaps": [
            _("%(row)s requires %(pattern)s: nothing in reach provides it")
            % {"row": gap.row, "pattern": gap.pattern}
            + (f" ({pool} {gap.pool})" if gap.pool else "")
            for gap in report.gaps
        ],
        "conflicts": [
            _("%(a)s and %(b)s conflict in pool %(pool)s")
            % {"a": c.row_a, "b": c.row_b, "pool": c.pool}
            + f": {', '.join(c.tokens)}"
            for c in report.conflicts
        ],
        "missing_layers": [say(m.message) for m in report.missing_layers],
        "fit": [{"status": f.status, "finding": say(f.message)} for f in report.fit],
    }


def _links(evaluation: Evaluation, rows, base_url: str) -> dict[str, Any]:
    base = base_url.rstrip("/")
    return {
        "evaluation": base + reverse("evaluations:detail", args=[evaluation.pk]),
        "decision": base + reverse("evaluations:decision", args=[evaluation.pk]),
        "rows": [
            {
                "ref": row.ref,
                "name": f"{row.project.name} · {row.component or row.key}",
                "catalog": base
                + reverse("catalog:project-detail", args=[row.project.slug])
                + f"#row-{row.key}",
                "evidence": [
                    {"url": url, "label": evidence_label(url)} for url in _evidence_urls(row)
                ],
            }
            for row in rows
        ],
    }


def _evidence_urls(row) -> list[str]:
    urls = [item.get("url", "") if isinstance(item, dict) else str(item) for item in row.evidence]
    return list(dict.fromkeys(url for url in urls if url))


def adr_data(evaluation: Evaluation, *, base_url: str) -> dict[str, Any]:
    """The decision record as JSON-ready data, in the active language."""
    decision = getattr(evaluation, "decision", None)
    chosen = selectors.decision_rows(evaluation)
    deciders, reviewers = _people(evaluation)
    candidates = [c.row for c in selectors.candidates_of(evaluation)]
    linked = list({row.ref: row for row in [*chosen, *candidates]}.values())
    names = {row.ref: f"{row.project.name} · {row.component or row.key}" for row in chosen}
    return {
        "format": FORMAT,
        "id": evaluation.pk,
        "title": evaluation.title,
        "status": {
            "state": evaluation.get_state_display(),
            "date": evaluation.updated_at.date().isoformat(),
            "revision": evaluation.revision,
            "team": evaluation.team.name,
            "deciders": deciders,
            "reviewers": reviewers,
        },
        "context": _problem(evaluation),
        "drivers": _drivers(evaluation.profile or {}),
        "options": _options(evaluation),
        "outcome": {
            "chosen": [_row_words(row) for row in chosen],
            "pools": [
                {"pool": name, "rows": [names.get(ref, ref) for ref in refs]}
                for name, refs in ((decision.pools or {}).items() if decision else ())
            ],
            "rationale": decision.rationale if decision else "",
            "decided_at": decision.decided_at.date().isoformat() if decision else None,
        },
        "consequences": {
            "risks": [line.strip() for line in (decision.risks if decision else "").splitlines()
                      if line.strip()],
            "acceptance_checks": [
                line.strip()
                for line in (decision.acceptance_checks if decision else "").splitlines()
                if line.strip()
            ],
            "stack_check": _stack_check(evaluation),
        },
        "links": _links(evaluation, linked, base_url),
    }  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Markdown


@dataclass
class _Doc:
    lines: list[str]

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def heading(self, level: int, text: str) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")
        self.lines.extend(["#" * level + " " + text, ""])

    def bullets(self, items: list[str], empty: str | None = None) -> None:
        if items:
            self.lines.extend(f"* {item}" for item in items)
        elif empty:
            self.lines.append(f"*{empty}*")
        self.lines.append("")


def _names(items: list[Any]) -> str:
    return ", ".join(md_inline(item) for item in items) or "—"


def _cell(text: Any) -> str:
    return md_inline(text) or "—"


def adr_markdown(data: dict[str, Any]) -> str:
    """The decision record as MADR Markdown (from `adr_data`)."""
    doc = _Doc([])
    status = data["status"]
    doc.add(f"# {md_inline(data['title'])}", "")
    reviewers = [
        _("%(reviewer)s (%(verdict)s, revision %(revision)s, %(date)s)")
        % {**item, "reviewer": md_inline(item["reviewer"])}
        for item in status["reviewers"]
    ]
    doc.bullets(
        [
            _("Status: %(state)s (revision %(revision)s)")
            % {"state": md_inline(status["state"]), "revision": status["revision"]},
            _("Date: %(date)s") % {"date": status["date"]},
            _("Team: %(team)s") % {"team": md_inline(status["team"])},
            _("Deciders: %(names)s") % {"names": _names(status["deciders"])},
            _("Reviewers: %(names)s") % {"names": ", ".join(reviewers) or "—"},
        ]
    )

    doc.heading(2, _("Context and problem statement"))
    doc.add(md_inline(data["context"]), "")

    doc.heading(2, _("Decision drivers"))
    for driver in data["drivers"]:
        if "ranked" in driver:
            doc.add(f"* {md_inline(driver['driver'])}:")
            doc.add(*(f"  {n}. {md_inline(p)}" for n, p in enumerate(driver["ranked"], 1)))
            if not driver["ranked"]:
                doc.add(f"  * {_('not answered')}")
        else:
            doc.add(f"* {md_inline(driver['driver'])}: {md_inline(driver['value'])}")
    doc.add("")

    options = data["options"]
    doc.heading(2, _("Considered options"))
    if not options["by_layer"]:
        doc.add(f"*{_('No candidates yet.')}*", "")
    header = [
        _("Project"),
        _("Component"),
        _("Resource units"),
        _("Enforcement points"),
        _("Alternatives group"),
        _("Responsible for"),
        _("Not responsible for"),
    ]
    for layer in options["by_layer"]:
        doc.heading(3, md_inline(layer["layer"]))
        doc.add("| " + " | ".join(header) + " |", "|" + "---|" * len(header))
        for row in layer["candidates"]:
            cells = [
                _cell(row["project"]),
                _cell(row["component"]),
                _names(row["units"]),
                _names(row["enforcement_points"]),
                _cell(row["alternative_group"]),
                _cell(row["promise"]),
                _cell(row["non_promise"]),
            ]
            doc.add("| " + " | ".join(cells) + " |")
        doc.add("")
    if options["alternative_groups"]:
        doc.heading(3, _("Put up as alternatives"))
        doc.bullets(
            [
                f"{md_inline(group['group'])}: {_names(group['candidates'])}"
                for group in options["alternative_groups"]
            ]
            + [f"⚠ {md_inline(message)}" for message in options["misjudgements"]]
        )
    if options["verdicts"]:
        doc.heading(3, _("Verdicts between them"))
        doc.bullets(
            [
                f"**{md_inline(item['verdict'])}** — {_names(item['between'])}: "
                f"{md_inline(item['reason'])}"
                for item in options["verdicts"]
            ]
        )

    outcome = data["outcome"]
    doc.heading(2, _("Decision outcome"))
    if outcome["chosen"]:
        doc.add(_("Chosen stack:"), "")
        doc.bullets(
            [
                f"{md_inline(row['project'])} · {md_inline(row['component'])} "
                f"({md_inline(row['layer'])})"
                for row in outcome["chosen"]
            ]
        )
        if outcome["pools"]:
            doc.add(_("Node pools (rows in no pool run cluster-wide):"), "")
            doc.bullets(
                [f"{md_inline(pool['pool'])}: {_names(pool['rows'])}" for pool in outcome["pools"]]
            )
        doc.add(f"{_('Rationale')}:", "")
        doc.add(*(md_lines(outcome["rationale"]) or ["—"]))
        doc.add("")
    else:
        doc.add(f"*{_('No decision yet.')}*", "")

    consequences = data["consequences"]
    doc.heading(2, _("Consequences"))
    doc.heading(3, _("Risks and failure modes to watch"))
    doc.bullets([md_inline(line) for line in consequences["risks"]], empty="—")
    doc.heading(3, _("Acceptance checks"))
    checks = [md_inline(line) for line in consequences["acceptance_checks"]]
    if checks:
        doc.add(*(f"{n}. {check}" for n, check in enumerate(checks, 1)), "")
    else:
        doc.add("*—*", "")
    check = consequences["stack_check"]
    doc.heading(3, _("Stack check"))
    if check is None:
        doc.add(f"*{_('No decided stack to check.')}*", "")
    else:
        verdict = (
            _("No gaps, no conflicts.") if check["ok"] else _("The stack has gaps or conflicts.")
        )
        marks = {"ok": "✓", "warning": "!", "gap": "✗"}
        doc.add(verdict, "")
        doc.bullets(
            [f"✗ {md_inline(line)}" for line in check["gaps"] + check["conflicts"]]
            + [f"! {md_inline(line)}" for line in check["missing_layers"]]
            + [f"{marks.get(f['status'], '·')} {md_inline(f['finding'])}" for f in check["fit"]]
        )

    links = data["links"]
    doc.heading(2, _("Links"))
    doc.add(
        f"* {md_link(_('This evaluation in EcoMap'), links['evaluation'])}",
        f"* {md_link(_('The decision page'), links['decision'])}",
    )
    for row in links["rows"]:
        doc.add(f"* {md_link(row['name'], row['catalog'])}")
        # Its evidence as a nested list: the sources a reviewer checks the row against.
        doc.add(
            *(
                f"  * {md_link(item['label'], item['url'])}"
                for item in row["evidence"]
                if md_url(item["url"])
            )
        )
    return "\n".join(doc.lines).rstrip() + "\n"


@dataclass
class DecisionRecord:
    data: dict[str, Any]
    markdown: str


def adr_build(evaluation: Evaluation, *, base_url: str) -> DecisionRecord:
    """The evaluation's decision record as data (the JSON endpoint) and Markdown (the file)."""
    data = adr_data(evaluation, base_url=base_url)
    return DecisionRecord(data=data, markdown=adr_markdown(data))


def adr_filename(evaluation: Evaluation) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", evaluation.title.lower()).strip("-")[:60] or "decision"
    return f"adr-{evaluation.pk:04d}-{slug}.md"


SCHEMA_NOTE = (
    "The decision record: `format` (ecomap.adr/v1), `id`, `title`, `status` (state, date, "
    "revision, team, deciders, reviewers), `context` (the problem in words), `drivers` (the "
    "step-1 answers that drive the choice; priorities `ranked`), `options` (candidates "
    "`by_layer`, `alternative_groups`, `misjudgements`, `verdicts` between them), `outcome` "
    "(`chosen` rows, `pools`, `rationale`), `consequences` (`risks`, `acceptance_checks`, "
    "`stack_check`), `links` (absolute URLs: evaluation, decision, each row's catalog entry and "
    "evidence). All text is in the requested language."
)
