"""Search words: what a query in English or Chinese asks for, and where a text matches it.

A query is cut into the user's own words (matched as prefixes, so "gpust" finds GPUStack) and
the related words they stand for: the catalog's vocabulary labels in both languages (成组调度 →
`gang`) and a small domain glossary of what people type for what the catalog says ("fractional"
GPUs are shared, sliced or vGPUs; "notebooks" are interactive workloads). Chinese runs are cut
by the longest glossary entries they contain. Highlighting escapes the text itself: callers get
HTML in which only the <mark> tags are markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_QUERY = 100
MAX_WORDS = 12

FRACTIONAL = (
    "fraction",
    "share",
    "sharing",
    "slice",
    "vgpu",
    "gpumem",
    "mps",
    "mig_slice",
    "amd_partition",
    "time_slice",
    "mps_share",
    "memory_compute_quota",
)
# What people type → words the catalog uses for it (English; lowercase). Vocabulary keys among
# them (`gang`, `vgpu`, `isolate`) also rank the rows that carry them.
DOMAIN_GLOSSARY: dict[str, tuple[str, ...]] = {
    "gang": ("gang", "podgroup", "coscheduling"),
    # A fraction of a GPU: any unit smaller than a whole GPU (DESIGN's resource units).
    "fractional": FRACTIONAL,
    "fraction": FRACTIONAL,
    "sharing": ("share", "sharing", "slice", "vgpu", "fraction", "time_slice", "mps_share"),
    "notebook": ("notebook", "jupyter", "interactive"),
    "jupyter": ("notebook", "jupyter", "interactive"),
    "tenant": ("tenant", "multi-tenant", "tenancy"),
    # Isolating tenants takes memory, compute and fault isolation all hard (DESIGN: "hard").
    "tenant isolation": ("hard", "isolation"),
    "isolation": ("isolation", "isolate", "isolated"),
    "isolated": ("isolation", "isolate"),
    "partition": ("partition", "mig", "slice", "amd_partition"),
    "monitoring": ("metric", "observe", "exporter", "dcgm"),
    "metrics": ("metric", "observe", "exporter"),
    "preemption": ("preemption", "preempt"),
    "queue": ("queue", "queueing"),
    "fair": ("fair", "fair-sharing", "drf"),
    "serving": ("serving", "inference"),
    "inference": ("serving", "inference"),
    "vm": ("virtualization", "kubevirt", "vgpu"),
    # Chinese terms with no vocabulary label of their own
    "租户": ("tenant", "multi-tenant", "tenancy"),
    "多租户": ("tenant", "multi-tenant", "tenancy"),
    "隔离": ("isolation", "isolate"),
    "租户隔离": ("tenant", "hard", "isolation"),
    "硬隔离": ("hard", "isolation"),
    "组调度": ("gang",),
    "成组调度": ("gang",),
    "共享": ("share", "sharing"),
    "切分": FRACTIONAL,
    "切片": ("slice",),
    "分片": ("slice", "partition"),
    "显存": ("memory", "gpumem"),
    "算力": ("compute", "core"),
    "配额": ("quota",),
    "抢占": ("preemption", "preempt"),
    "队列": ("queue",),
    "调度": ("scheduling", "scheduler"),
    "调度器": ("scheduler",),
    "推理": ("inference", "serving"),
    "训练": ("training",),
    "笔记本": ("notebook", "jupyter", "interactive"),
    "交互式": ("interactive", "notebook"),
    "监控": ("metric", "observe", "monitoring"),
    "指标": ("metric",),
    "虚拟化": ("virtualization", "vgpu"),
    "公平": ("fair",),
    "驱动": ("driver",),
    "设备插件": ("device-plugin", "device", "plugin"),
    "故障": ("fault", "failure"),
    "成本": ("cost",),
}

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "which",
        "who",
        "with",
    ]
)
# Words nearly every catalog text holds: beside other words they would rank everything alike.
COMMON = frozenset(
    ["gpu", "gpus", "kubernetes", "k8s", "cluster", "clusters", "node", "nodes", "pod", "pods"]
)

_LATIN = re.compile(r"[0-9a-z][0-9a-z_.+-]*", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SUFFIXES = (
    "ational",
    "ations",
    "ation",
    "ional",
    "ings",
    "ing",
    "ions",
    "ion",
    "es",
    "s",
    "al",
    "ed",
)


@dataclass(frozen=True)
class SearchTerms:
    """The words a query is searched for."""

    text: str
    words: tuple[str, ...]  # the user's own Latin words, lowercase, matched as prefixes
    related: tuple[str, ...]  # words the query stands for (labels, glossary), matched whole
    cjk: tuple[str, ...]  # Chinese runs as typed, matched as substrings where no stemmer helps
    # What the ranking sums over: one group per thing asked for, (typed word or "", the words
    # it stands for); a text matching two groups ranks above one matching a group twice.
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.words or self.related or self.cjk)

    @property
    def all_words(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.words, *self.related)))


def glossary_with_labels(labels: Iterable[tuple[str, str, str]]) -> dict[str, tuple[str, ...]]:
    """The domain glossary plus the vocabulary: each (key, English label, Chinese label) makes
    the key and both labels stand for the key (the documents hold keys, split into words). A
    label's other words are left out: "scheduling" from "Gang scheduling" would find every
    scheduler."""
    glossary = {term: tuple(words) for term, words in DOMAIN_GLOSSARY.items()}
    for key, name_en, name_zh in labels:
        for label in (key.lower(), name_en.lower().strip(), name_zh.strip()):
            if label:
                glossary[label] = tuple(dict.fromkeys((*glossary.get(label, ()), key.lower())))
    return glossary


def search_terms(text: str, glossary: Mapping[str, tuple[str, ...]]) -> SearchTerms:
    text = " ".join((text or "").split())[:MAX_QUERY]
    lowered = text.lower()
    words = [w for w in _latin_words(lowered) if w not in STOPWORDS][:MAX_WORDS]
    if any(w not in COMMON for w in words):
        words = [w for w in words if w not in COMMON]
    groups: dict[str, tuple[str, list[str]]] = {}
    # A phrase the glossary knows ("tenant isolation") is one thing asked for; other words each
    # stand for themselves, their glossary words and those of their bare form.
    i = 0
    while i < len(words):
        for size in (3, 2):
            phrase = " ".join(words[i : i + size])
            if i + size <= len(words) and phrase in glossary:
                groups[phrase] = (words[i], [*words[i + 1 : i + size], *glossary[phrase]])
                i += size
                break
        else:
            word = words[i]
            bare = _bare(word)
            related = [*glossary.get(word, ()), *(glossary.get(bare, ()) if bare != word else ())]
            groups.setdefault(word, (word, []))[1].extend(related)
            i += 1
    cjk: list[str] = []
    for run in _CJK.findall(text):
        cjk.append(run)
        for piece in _segment(run, glossary):
            groups.setdefault(piece, ("", []))[1].extend(glossary[piece])
    shaped = tuple(
        (word, tuple(dict.fromkeys(w for r in related for w in _tokens(r) if w != word)))
        for word, related in groups.values()
    )
    related_words = tuple(dict.fromkeys(w for _, group in shaped for w in group))
    return SearchTerms(
        text=text,
        words=tuple(dict.fromkeys(words)),
        related=tuple(w for w in related_words if w not in words),
        cjk=tuple(dict.fromkeys(cjk)),
        groups=tuple((word, group) for word, group in shaped if word or group),
    )


def _latin_words(text: str) -> list[str]:
    """Latin words, with identifiers split at their punctuation (`gang-scheduling` → both)."""
    found: list[str] = []
    for token in _LATIN.findall(text.lower()):
        token = token.strip("._+-")
        if not token:
            continue
        found.append(token)
        parts = [p for p in re.split(r"[_.+-]+", token) if p]
        if len(parts) > 1:
            found.extend(parts)
    return found


def _tokens(text: str) -> list[str]:
    """Latin words with identifiers kept whole (`time_slice`, `multi-tenant`)."""
    return [t.strip("._+-") for t in _LATIN.findall(text.lower()) if t.strip("._+-")]


def _bare(word: str) -> str:
    """A crude English stem for matching: the word without a common ending (≥ 4 letters kept)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _segment(run: str, glossary: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The glossary entries a Chinese run is made of, longest first from the left; characters
    no entry covers are skipped."""
    pieces: list[str] = []
    entries = sorted((k for k in glossary if _CJK.fullmatch(k)), key=len, reverse=True)
    i = 0
    while i < len(run):
        for entry in entries:
            if run.startswith(entry, i):
                pieces.append(entry)
                i += len(entry)
                break
        else:
            i += 1
    return pieces


def _pattern(terms: SearchTerms) -> re.Pattern[str] | None:
    stems = sorted({_bare(w) for w in terms.all_words if len(w) >= 2}, key=len, reverse=True)
    # An identifier matches however it is written: `time_slice`, "time-slice", "time slice".
    parts = [r"\b" + re.sub(r"\\?[_-]", "[ _-]", re.escape(stem)) + r"[\w-]*" for stem in stems]
    parts += [re.escape(run) for run in sorted(terms.cjk, key=len, reverse=True)]
    if not parts:
        return None
    return re.compile("|".join(parts), re.IGNORECASE)


def highlight(text: str, terms: SearchTerms) -> str:
    """`text` as HTML: escaped, with every matched word inside <mark>."""
    pattern = _pattern(terms)
    if pattern is None:
        return html.escape(text)
    out: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        out.append(f"<mark>{html.escape(match.group())}</mark>")
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def matches(text: str, terms: SearchTerms) -> int:
    """How many different search words occur in `text` (0 when none)."""
    pattern = _pattern(terms)
    if pattern is None or not text:
        return 0
    return len({_bare(m.group().lower()) for m in pattern.finditer(text)})


def excerpt(text: str, terms: SearchTerms, *, width: int = 200) -> str:
    """A highlighted window of `text` around its first match ("" when nothing matches)."""
    pattern = _pattern(terms)
    found = pattern.search(text) if pattern else None
    if found is None:
        return ""
    start = max(0, found.start() - width // 3)
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < found.start() else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", found.end(), end)
        end = space if space > 0 else end
    window = text[start:end]
    return ("…" if start else "") + highlight(window, terms) + ("…" if end < len(text) else "")
