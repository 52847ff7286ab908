"""Request parsers for imports: the raw text of JSON, YAML and CSV bodies.

The import service detects the format and parses it itself (safely, with positions in its
errors), so these parsers only check the media type and hand over the decoded text.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import BaseParser


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than the import limit."
    default_code = "payload_too_large"


class RawTextParser(BaseParser):
    media_type = "*/*"  # replaced per subclass

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.IMPORT_MAX_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise PayloadTooLarge(f"The body is {declared} bytes; the limit is {limit} bytes.")
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise PayloadTooLarge(f"The body is over the limit of {limit} bytes.")
        try:
            return {"text": data.decode("utf-8"), "media_type": self.media_type}
        except UnicodeDecodeError as exc:
            raise ParseError(f"the body is not UTF-8 text: {exc}") from exc


class JSONTextParser(RawTextParser):
    media_type = "application/json"


class YAMLTextParser(RawTextParser):
    media_type = "application/yaml"


class XYAMLTextParser(RawTextParser):
    media_type = "application/x-yaml"


class TextYAMLParser(RawTextParser):
    media_type = "text/yaml"


class CSVTextParser(RawTextParser):
    media_type = "text/csv"


IMPORT_PARSERS = (JSONTextParser, YAMLTextParser, XYAMLTextParser, TextYAMLParser, CSVTextParser)
