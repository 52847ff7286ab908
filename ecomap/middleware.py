"""Request guards that hold for every page and endpoint."""

from __future__ import annotations

import gzip
import secrets
import string
import struct
import zlib
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from ecomap.errors import API_PREFIX

NUL_MESSAGE = "NUL characters are not allowed in paths, query strings or form values."
# Imports and cluster snapshots read their (large) bodies as a stream and refuse NUL themselves.
_IMPORTS = "/api/v1/imports/"
_STREAMED = (_IMPORTS, "/api/v1/clusters/")
# Where a body may be as large as an import; everything else is a form or a small JSON document.
_LARGE_BODIES = (*_STREAMED, "/catalog/imports/upload/", "/clusters/", "/admin/")
# Step 1's trace upload (/evaluations/<pk>/steps/1/trace/): the trace reader refuses a trace
# past its own caps (catalog.engine.workload_mix) with a field error, so it may see the body.
_TRACE_UPLOAD = ("/evaluations/", "/steps/1/trace/")


class PermissionsPolicyMiddleware:
    """A Permissions-Policy header on every response (issue 28): the browser features in
    PERMISSIONS_POLICY are denied to the site and anything it embeds, so injected or third-party
    code could not use them either. A view may set its own header."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.header = ", ".join(
            f"{feature}=({' '.join(allowed)})"
            for feature, allowed in settings.PERMISSIONS_POLICY.items()
        )

    def __call__(self, request):
        response = self.get_response(request)
        if self.header:
            response.headers.setdefault("Permissions-Policy", self.header)
        return response


class BodySizeMiddleware:
    """413 for a body over REQUEST_MAX_BYTES, except where imports are uploaded (IMPORT_MAX_BYTES
    applies there)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = (
            settings.IMPORT_MAX_BYTES
            if request.path.startswith(_LARGE_BODIES)
            or (
                request.path.startswith(_TRACE_UPLOAD[0])
                and request.path.endswith(_TRACE_UPLOAD[1])
            )
            else settings.REQUEST_MAX_BYTES
        )
        if length > limit:
            message = f"The request body is over the limit of {limit} bytes."
            if request.path.startswith(API_PREFIX):
                return JsonResponse(
                    {"detail": message, "errors": [{"path": "$", "message": message}]}, status=413
                )
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class RejectNulMiddleware:
    """Refuse NUL (`\\x00`, `%00`, JSON `\\u0000`) anywhere in a request with a 400.

    PostgreSQL rejects NUL in text, so one such character in a search box, a pool name or a path
    would otherwise surface as a 500 deep inside whichever query first used it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if self._has_nul(request):
            if request.path.startswith(API_PREFIX):
                return JsonResponse(
                    {"detail": NUL_MESSAGE, "errors": [{"path": "$", "message": NUL_MESSAGE}]},
                    status=400,
                )
            return HttpResponseBadRequest(NUL_MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)

    @staticmethod
    def _has_nul(request) -> bool:
        if "\x00" in request.path:
            return True
        if b"\x00" in unquote_to_bytes(request.META.get("QUERY_STRING", "")):
            return True
        if request.method not in ("POST", "PUT", "PATCH") or request.path.startswith(_STREAMED):
            return False
        content_type = request.META.get("CONTENT_TYPE", "")
        if content_type.startswith("application/x-www-form-urlencoded"):
            return b"\x00" in unquote_to_bytes(request.body)
        if content_type.startswith("application/json"):
            return b"\x00" in request.body or b"\\u0000" in request.body
        return False


class QueueUnavailableMiddleware:
    """Pages that need a worker while the broker is down answer 503 with the reason (the API's
    views answer it themselves: QueueUnavailable is a DRF APIException)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from ecomap.dispatch import QueueUnavailable  # the Celery app loads after the settings

        if not isinstance(exception, QueueUnavailable):
            return None
        if request.path.startswith(API_PREFIX):
            return JsonResponse({"detail": str(exception.detail)}, status=503)
        return render(request, "503.html", {"message": exception.detail}, status=503)


_LETTERS = string.ascii_letters.encode()


class CachedGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware, except that a response naming `gzip_cache_key` (a body the same
    for every reader: the API's cached lists, 520 kB of JSON) is compressed once and its
    compressed stream reused from the cache, checked against the body's CRC-32 and length in the
    gzip trailer. Every response still gets its own random padding (a random file name in the
    gzip header, as Django adds against BREACH)."""

    def process_response(self, request, response):
        key = getattr(response, "gzip_cache_key", None)
        if (
            key is None
            or response.streaming
            or response.has_header("Content-Encoding")
            or len(response.content) < 200
        ):
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Encoding",))
        if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        content = response.content
        trailer = struct.pack("<II", zlib.crc32(content), len(content) & 0xFFFFFFFF)
        stream = cache.get(key)
        if not isinstance(stream, bytes) or stream[-8:] != trailer:
            stream = gzip.compress(content, compresslevel=6, mtime=0)
            cache.set(key, stream, getattr(response, "gzip_cache_seconds", 600))
        if len(stream) >= len(content):
            return response
        header = bytearray(stream[:10])
        header[3] = gzip.FNAME
        padding = bytes(secrets.choice(_LETTERS) for _ in range(secrets.randbelow(100) + 1))
        response.content = bytes(header) + padding + b"\x00" + stream[10:]
        response.headers["Content-Length"] = str(len(response.content))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response
