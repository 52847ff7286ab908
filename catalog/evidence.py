"""How an evidence link reads: the repository and file it points at, not a bare host name."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlparse

_LINES = re.compile(r"^L(\d+)(?:-L(\d+))?$")
_KEEP_SEGMENTS = 2  # the file and its folder say what the link is; the rest is "…"


def _lines(fragment: str) -> str:
    match = _LINES.match(fragment)
    if not match:
        return ""
    first, last = match.groups()
    return f" L{first}–{last}" if last else f" L{first}"


def _short_path(segments: list[str]) -> str:
    if len(segments) <= _KEEP_SEGMENTS:
        return "/".join(segments)
    return "…/" + "/".join(segments[-_KEEP_SEGMENTS:])


def evidence_label(url: str) -> str:
    """A short, readable name for an evidence URL: `NVIDIA/dcgm-exporter · …/cmd/app.go L329–334`
    for a GitHub file, `owner/repo · commit 12e0a72` for a commit, `host · …/folder/page` for
    anything else. The full URL stays in the link itself."""
    parsed = urlparse(url)
    host = parsed.netloc.lower().removeprefix("www.")
    if not host:
        return url
    segments = [unquote(part) for part in parsed.path.split("/") if part]
    if host == "github.com" and len(segments) >= 2:
        repository = f"{segments[0]}/{segments[1]}"
        rest = segments[2:]
        if len(rest) >= 2 and rest[0] == "commit":
            return f"{repository} · commit {rest[1][:7]}"
        if len(rest) >= 3 and rest[0] in ("blob", "tree"):
            return f"{repository} · {_short_path(rest[2:])}{_lines(parsed.fragment)}"
        if rest:
            return f"{repository} · {_short_path(rest)}"
        return repository
    if not segments:
        return host
    return f"{host} · {_short_path(segments)}"
