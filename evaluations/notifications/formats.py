"""The body a team's webhook receives, per format: EcoMap's generic JSON (signed in the
X-EcoMap-Signature header), a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat
read `text`), or a Feishu/Lark custom bot (`msg_type` text, signed in the body when the team has
a secret, as Feishu's "signature verification" expects). Plain Python, no Django."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

GENERIC = "generic"
SLACK = "slack"
FEISHU = "feishu"
FORMATS = (GENERIC, SLACK, FEISHU)


def feishu_sign(secret: str, timestamp: int) -> str:
    """Feishu/Lark's bot signature: base64 of HMAC-SHA256 keyed with "timestamp\\nsecret" over
    an empty message."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def webhook_body(
    *, format: str, payload: dict[str, Any], secret: str, timestamp: int, sent_at: str
) -> bytes:
    """The JSON bytes to POST for a stored delivery payload."""
    if format == SLACK:
        document: dict[str, Any] = {"text": payload.get("text", "")}
    elif format == FEISHU:
        summary = payload.get("summary") or payload.get("text", "")
        url = (payload.get("evaluation") or {}).get("url", "")
        text = f"{summary}\n{url}".strip()
        document = {"msg_type": "text", "content": {"text": text}}
        if secret:
            document = {"timestamp": str(timestamp), "sign": feishu_sign(secret, timestamp),
                        **document}  # fmt: skip
    else:
        document = {**payload, "sent_at": sent_at}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
