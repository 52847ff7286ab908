"""OpenAPI links of the evaluation API (issue 28 L8): where a save's `revision` comes from.

Every save of an evaluation's content (the four steps and the decision) must send the revision
it was made on (428 without it). The schema says where a client reads it: the `revision` of the
evaluation's GET, of its creation (201) and of the answer to a step save. Each such response
links to the saves with the evaluation's `id` as the path parameter and `{"revision": …}` as the
part of the body the link fills in; the rest of the body is the client's. Schemathesis' stateful
phase follows these links, so its saves reach the real evaluation with a realistic revision.
"""

from __future__ import annotations

from typing import Any

DETAIL = "/api/v1/evaluations/{id}/"
# The saves that must say their revision, by the path relative to DETAIL (all PUT).
CONTENT_SAVES = {
    "SaveProfile": "steps/profile/",
    "SaveUnits": "steps/units/",
    "SaveCandidates": "steps/candidates/",
    "SaveBoundaries": "steps/boundaries/",
    "SaveDecision": "decision/",
}
# Responses that carry the evaluation (`id` and `revision`): path, method, status.
SOURCES = [
    ("/api/v1/evaluations/", "post", "201"),
    (DETAIL, "get", "200"),
    # a step save answers with the evaluation; the decision's answer is the decision itself
    *[(DETAIL + path, "put", "200") for path in CONTENT_SAVES.values() if path != "decision/"],
]


def _links(paths: dict[str, Any]) -> dict[str, Any]:
    links: dict[str, Any] = {}
    for name, suffix in CONTENT_SAVES.items():
        operation = paths.get(DETAIL + suffix, {}).get("put")
        if not operation or "operationId" not in operation:
            continue
        links[name] = {
            "operationId": operation["operationId"],
            "parameters": {"path.id": "$response.body#/id"},
            "requestBody": {"revision": "$response.body#/revision"},
            "description": "Save this evaluation on the revision just read: send its `revision` "
            "in the body (the other fields are yours).",
        }
    return links


def revision_links(result, generator, request, public):
    """Schema hook: link every response that carries an evaluation to its content saves."""
    paths = result.get("paths", {})
    links = _links(paths)
    if not links:
        return result
    for path, method, status in SOURCES:
        response = paths.get(path, {}).get(method, {}).get("responses", {}).get(status)
        if isinstance(response, dict):
            response.setdefault("links", {}).update(links)
    return result
