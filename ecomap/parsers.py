"""The API's JSON parser: DRF's, with the shape of a body bounded before Python's parser sees it.

Python's `json` recurses once per level and raises RecursionError (a 500) past about a thousand
levels; it raises ValueError for an integer of more than 4,300 digits, and turns `1e999` into
infinity, which no JSON answer can hold. Each becomes a ParseError here, which
`ecomap.api.api_exception_handler` answers as a 400 in the API's one error shape.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings

# No API body needs more than a few levels (a project with placements and interfaces: 7);
# imports allow the same 32 (catalog.imports.parsing.MAX_DEPTH).
MAX_DEPTH = 32
# Python's own limit on turning digits into an int (sys.int_info.default_max_str_digits).
MAX_INT_DIGITS = sys.int_info.default_max_str_digits
TOO_MANY_DIGITS = f"A number in the JSON body has more than {MAX_INT_DIGITS} digits."
TOO_LARGE = "A number in the JSON body is too large."

# A JSON string, so brackets inside one are not counted; an unterminated one runs to the end
# of the text (the closing quote is optional), which keeps the scan linear: a required quote
# would make the engine retry from every later quote of a body like `"\"\"\"…` (quadratic).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def nested_deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON text opens more than `limit` arrays or objects inside each other, read
    without parsing (so without recursion). Only bodies with more brackets than `limit` are
    walked at all."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class NumberRefused(ValueError):
    """A number Python could not hold: more digits than it converts, or beyond a float."""


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise NumberRefused(TOO_MANY_DIGITS)
    return int(digits)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NumberRefused(TOO_LARGE)
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_bounded(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` with the depth and the numbers bounded. Raises ParseError with a message a
    client can act on."""
    if nested_deeper_than(text, max_depth):
        raise ParseError(f"The JSON body is nested deeper than {max_depth} levels.")
    try:
        return json.loads(
            text,
            parse_int=_int,
            parse_float=_float,
            parse_constant=_constant if api_settings.STRICT_JSON else None,
        )
    except NumberRefused as exc:
        raise ParseError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"The body is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"The body is not valid JSON: {str(exc)[:200]}.") from None


class BoundedJSONParser(JSONParser):
    """DRF's JSONParser (the API's default) with `loads_bounded` in place of `json.load`."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            text = codecs.getreader(encoding)(stream).read()
        except UnicodeDecodeError as exc:
            raise ParseError(f"The body is not {encoding} text: {exc.reason}.") from None
        return loads_bounded(text)
