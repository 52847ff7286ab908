"""A small OpenID Connect provider for the tests, on 127.0.0.1 in a thread: discovery, JWKS,
an authorization page with a "Sign in" button, the token endpoint (authorization code with PKCE,
client secret checked) and userinfo. ID tokens are RS256 JWTs signed with joserfc. It signs in
whoever `user` says, with their groups; it is a real HTTP provider, not a mock of EcoMap's views.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "ecomap-test"
CLIENT_SECRET = "ecomap-test-secret"  # noqa: S105 (the test provider's client secret)
KID = "test-key-1"


@dataclass
class Issuer:
    url: str = ""
    # The person the provider signs in: OIDC claims (sub, email, groups, …).
    user: dict[str, Any] = field(default_factory=dict)
    # Issued codes → what the token endpoint must see again.
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    # Tests change these to see EcoMap refuse a bad token.
    id_token_issuer: str | None = None
    id_token_audience: str | None = None


def _b64url_sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@contextmanager
def oidc_issuer(user: dict[str, Any]) -> Iterator[Issuer]:
    key = RSAKey.generate_key(2048, parameters={"kid": KID, "use": "sig", "alg": "RS256"})
    issuer = Issuer(user=dict(user))

    class Handler(BaseHTTPRequestHandler):
        def _json(self, status: int, document: Any) -> None:
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _form(self) -> dict[str, str]:
            length = int(self.headers.get("Content-Length", 0))
            fields = parse_qs(self.rfile.read(length).decode())
            return {name: values[0] for name, values in fields.items()}

        def do_GET(self):  # noqa: N802 - the name http.server calls
            parts = urlsplit(self.path)
            issuer.requests.append(f"GET {parts.path}")
            query = {name: values[0] for name, values in parse_qs(parts.query).items()}
            if parts.path == "/.well-known/openid-configuration":
                self._json(200, {
                    "issuer": issuer.url,
                    "authorization_endpoint": f"{issuer.url}/authorize",
                    "token_endpoint": f"{issuer.url}/token",
                    "userinfo_endpoint": f"{issuer.url}/userinfo",
                    "jwks_uri": f"{issuer.url}/jwks",
                    "response_types_supported": ["code"],
                    "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"],
                    "code_challenge_methods_supported": ["S256"],
                })  # fmt: skip
            elif parts.path == "/favicon.ico":  # the browser asks on the provider's page
                self.send_response(204)
                self.end_headers()
            elif parts.path == "/jwks":
                self._json(200, {"keys": [key.as_dict(private=False)]})
            elif parts.path == "/authorize":
                self._authorize_page(query)
            elif parts.path == "/userinfo":
                token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                if token not in issuer.tokens:
                    self._json(401, {"error": "invalid_token"})
                else:
                    self._json(200, issuer.tokens[token])
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self):  # noqa: N802
            parts = urlsplit(self.path)
            issuer.requests.append(f"POST {parts.path}")
            form = self._form()
            if parts.path == "/authorize":
                self._authorize_grant(form)
            elif parts.path == "/token":
                self._token(form)
            else:
                self._json(404, {"error": "not_found"})

        def _authorize_page(self, query: dict[str, str]) -> None:
            if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
                self._json(400, {"error": "invalid_request"})
                return
            hidden = "".join(
                f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                for name, value in query.items()
            )
            who = html.escape(issuer.user.get("email", issuer.user["sub"]))
            page = (
                "<!doctype html><html><head><title>Test identity provider</title></head><body>"
                f"<h1>Test identity provider</h1><p>Sign in to EcoMap as {who}?</p>"
                f'<form method="post" action="/authorize">{hidden}'
                '<button type="submit">Sign in</button></form></body></html>'
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def _authorize_grant(self, form: dict[str, str]) -> None:
            code = secrets.token_urlsafe(16)
            issuer.codes[code] = {
                "redirect_uri": form["redirect_uri"],
                "nonce": form.get("nonce"),
                "code_challenge": form.get("code_challenge"),
                "user": dict(issuer.user),
            }
            target = form["redirect_uri"] + "?" + urlencode({"code": code, "state": form["state"]})
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _token(self, form: dict[str, str]) -> None:
            grant = issuer.codes.pop(form.get("code", ""), None)
            if (form.get("client_id"), form.get("client_secret")) != (CLIENT_ID, CLIENT_SECRET):
                self._json(401, {"error": "invalid_client"})
                return
            if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
                self._json(400, {"error": "invalid_grant"})
                return
            challenge = grant["code_challenge"]
            if challenge and _b64url_sha256(form.get("code_verifier", "")) != challenge:
                self._json(400, {"error": "invalid_grant", "error_description": "PKCE"})
                return
            now = int(time.time())
            claims = {
                **grant["user"],
                "iss": issuer.id_token_issuer or issuer.url,
                "aud": issuer.id_token_audience or CLIENT_ID,
                "iat": now,
                "exp": now + 300,
                "nonce": grant["nonce"],
            }
            id_token = jwt.encode({"alg": "RS256", "kid": KID}, claims, key)
            access_token = secrets.token_urlsafe(16)
            issuer.tokens[access_token] = dict(grant["user"])
            self._json(200, {
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": 300,
                "id_token": id_token,
            })  # fmt: skip

        def log_message(self, *args):  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    issuer.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
