"""Whether a documented relation's quote lies within the lines its source cites (issue 43): the
plain logic behind `scripts/check-quote-lines`, which reads the files from local git mirrors."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# https://github.com/OWNER/NAME/blob/REF/PATH#L10 or #L10-L20
_BLOB = re.compile(
    r"^https://github\.com/(?P<repo>[^/]+/[^/]+)/blob/(?P<ref>[^/]+)/(?P<path>[^#]+)"
    r"#L(?P<first>\d+)(?:-L(?P<last>\d+))?$"
)
# An editor's cut inside a quote: its fragments must appear in that order.
_CUT = re.compile(r"\s*(?:\.\.\.|…)\s*")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
# A word: letters, digits and the characters identifiers hold (nvidia.com/gpu, DCGM_FI_DEV_X).
_WORD = re.compile(r"[\w][\w./:-]*[\w]|[\w]")


@dataclass(frozen=True, slots=True)
class Cited:
    """A GitHub blob URL with a line range: the file at a ref and the lines it cites."""

    repo: str
    ref: str
    path: str
    first: int
    last: int


def cited_lines(url: str) -> Cited | None:
    """The repository, ref, path and line range a blob URL cites; None without a line range."""
    match = _BLOB.match(url.strip())
    if match is None:
        return None
    first = int(match["first"])
    last = int(match["last"] or first)
    return Cited(match["repo"], match["ref"], match["path"], min(first, last), max(first, last))


def _plain(text: str) -> str:
    """Words only: case, punctuation, markup, quoting and line breaks do not count, and a
    Markdown link counts by its text (`[text](url)` is `text`)."""
    text = unicodedata.normalize("NFKC", text)
    text = _LINK_TARGET.sub("", text)
    return " ".join(_WORD.findall(text.lower()))


def fragments(quote: str) -> list[str]:
    """The quote's pieces between cuts (" ... "), compared without case, markup or line breaks."""
    return [piece for piece in (_plain(p) for p in _CUT.split(quote)) if piece]


def quote_in(text: str, quote: str) -> bool:
    """Every fragment of the quote occurs in `text`, in order."""
    # Padded with spaces so a fragment matches whole words only ("gpu" is not in "gpus").
    haystack, at = f" {_plain(text)} ", 0
    for piece in fragments(quote):
        found = haystack.find(f" {piece} ", at)
        if found < 0:
            return False
        at = found + len(piece) + 1
    return bool(fragments(quote))


def quote_span(lines: list[str], quote: str) -> tuple[int, int] | None:
    """The shortest 1-based line range of `lines` that holds the quote, None when none does."""
    pieces = fragments(quote)
    if not pieces:
        return None
    plain = [_plain(line) for line in lines]
    starts, at = [], 0  # where each line begins in the joined text
    for line in plain:
        starts.append(at)
        at += len(line) + 1
    text = " ".join(plain) + " "

    def line_of(offset: int) -> int:
        return max(i for i, begin in enumerate(starts) if begin <= offset) + 1

    best: tuple[int, int] | None = None
    text = " " + text  # every line now begins one character later
    starts = [begin + 1 for begin in starts]

    def find(piece: str, at: int) -> int:
        found = text.find(f" {piece} ", at)
        return found + 1 if found >= 0 else -1  # where the piece's first word starts

    first = find(pieces[0], 0)
    while first >= 0:
        at = end = first + len(pieces[0])
        for piece in pieces[1:]:
            found = find(piece, at - 1)
            if found < 0:
                return best
            at = end = found + len(piece)
        span = (line_of(first), line_of(end - 1))
        if best is None or span[1] - span[0] < best[1] - best[0]:
            best = span
        first = find(pieces[0], first)
    return best


def check_quote(lines: list[str], cited: Cited, quote: str) -> tuple[str, str]:
    """("ok" | "off", why) for a quote against the file's lines and the range it cites."""
    window = lines[cited.first - 1 : cited.last]
    if window and quote_in("\n".join(window), quote):
        return "ok", f"L{cited.first}-L{cited.last}"
    span = quote_span(lines, quote)
    if span is None:
        return "off", f"not in {cited.path} at {cited.ref} (a paraphrase, or the file changed)"
    return "off", f"cited L{cited.first}-L{cited.last}, found at L{span[0]}-L{span[1]}"
