"""Read-only share links (issue 32 item 3): a link opens the decision, its PDF and its ADR and
nothing else; it expires, can be revoked, is listed on the decision, and each use is logged."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.resolvers import RoutePattern
from django.utils import timezone

from evaluations.audit.models import AuditEntry
from evaluations.errors import NotAllowed
from evaluations.reports.models import Report
from evaluations.sharing.models import ShareAccess, ShareLink
from evaluations.sharing.services import share_link_create, share_link_revoke
from tests.evaluations.factories import approved, make_cast, small_catalog

pytestmark = pytest.mark.django_db

TITLE = "Stack for the merger, confidential 7f3a"
RATIONALE = "Rationale only the team and the auditor may read 91c2."


@pytest.fixture
def cast():
    small_catalog()
    return make_cast()


@pytest.fixture
def decision(cast):
    evaluation = approved(cast)
    evaluation.title = TITLE
    evaluation.save(update_fields=["title"])
    evaluation.decision.rationale = RATIONALE
    evaluation.decision.save(update_fields=["rationale"])
    return evaluation


@pytest.fixture
def link(decision, cast):
    """bob (editor) shares the decision with an auditor; the key as the auditor receives it."""
    link, key = share_link_create(
        evaluation=decision, actor=cast.bob, label="Auditor, Example Corp", days=7
    )
    return link, key


@pytest.fixture
def pdf(decision):
    report = Report.objects.create(
        evaluation=decision, status=Report.Status.SUCCEEDED, evaluation_revision=decision.revision
    )
    report.file.save("r.pdf", ContentFile(b"%PDF-1.7 shared report"))
    return report


def test_the_link_opens_the_decision_without_an_account(link):
    _, key = link

    response = Client().get(f"/shared/{key}/")

    assert response.status_code == 200
    text = response.content.decode()
    assert TITLE in text
    assert RATIONALE in text
    assert "hami/device-plugin" in text
    assert response["Cache-Control"] == "private, no-store"
    assert response["Referrer-Policy"] == "no-referrer"


def test_the_link_downloads_the_pdf_and_the_adr(link, pdf):
    _, key = link
    client = Client()

    pdf_response = client.get(f"/shared/{key}/report.pdf")
    adr_response = client.get(f"/shared/{key}/adr.md")

    assert pdf_response.status_code == 200
    assert b"".join(pdf_response.streaming_content) == b"%PDF-1.7 shared report"
    assert adr_response.status_code == 200
    assert adr_response["Content-Type"].startswith("text/markdown")
    assert TITLE in adr_response.content.decode()


def test_the_key_is_stored_only_hashed(link):
    row, key = link

    assert key not in row.key_hash
    assert not ShareLink.objects.filter(key_hash=key).exists()


def _concrete(parts: list[tuple[bool, str]], values: dict[str, str]) -> str | None:
    """A real path for a URL pattern: every parameter filled from `values` (by name, else the
    evaluation's pk); None for patterns that cannot be written as one path."""
    path = ""
    for is_route, text in parts:
        if is_route:
            path += re.sub(
                r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), values["pk"]), text
            )
            continue
        text = text.removeprefix("^").removesuffix("$")
        out, i = "", 0
        while i < len(text):
            if text.startswith("(?P<", i):
                name = text[i + 4 : text.index(">", i)]
                depth, j = 0, i
                while True:  # to the group's closing parenthesis
                    if text[j] == "(" and text[j - 1] != "\\":
                        depth += 1
                    elif text[j] == ")" and text[j - 1] != "\\":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                out += values.get(name, values["pk"])
                i = j + 1
            else:
                out += text[i]
                i += 1
        out = out.replace("\\.", ".").replace("/?", "/")
        if re.search(r"[()\[\]*+?|\\]", out):
            return None
        path += out
    return "/" + path


def _all_paths(values: dict[str, str]) -> list[str]:
    paths: list[str] = []

    def walk(patterns, prefix):
        for pattern in patterns:
            part = (isinstance(pattern.pattern, RoutePattern), str(pattern.pattern))
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, [*prefix, part])
            elif isinstance(pattern, URLPattern):
                path = _concrete([*prefix, part], values)
                if path is not None:
                    paths.append(path)

    walk(get_resolver().url_patterns, [])
    return sorted(set(paths))


def test_no_other_url_shows_the_decision_to_the_links_holder(link, pdf, decision):
    row, key = link
    holder = Client()
    assert holder.get(f"/shared/{key}/").status_code == 200  # the holder has used the link
    values = {
        "pk": str(decision.pk),
        "key": key,
        "format": "json",
        "report_id": str(pdf.pk),
        "link_id": str(row.pk),
        "url": "",
        "slug": "platform",
    }
    every_path = _all_paths(values)
    assert f"/shared/{key}/" in every_path  # the walk reaches the link's own pages too
    paths = [path for path in every_path if not path.startswith("/shared/")]
    assert len(paths) > 150  # the walk found the whole URL tree, not a handful

    shown = []
    for path in paths:
        # The key offered every way a credential could be read: session cookie from the visit
        # above, query string, Authorization header.
        response = holder.get(path, {"key": key, "token": key}, HTTP_AUTHORIZATION=f"Token {key}")
        body = b"".join(response.streaming_content) if response.streaming else response.content
        if TITLE.encode() in body or RATIONALE.encode() in body or b"shared report" in body:
            shown.append(path)

    assert shown == []


def test_a_revoked_link_opens_nothing(link, pdf, cast):
    row, key = link
    client = Client()
    assert client.get(f"/shared/{key}/").status_code == 200

    share_link_revoke(link=row, actor=cast.bob)

    for path in ("", "report.pdf", "adr.md"):
        response = client.get(f"/shared/{key}/{path}")
        assert response.status_code == 410
        assert TITLE.encode() not in response.content


def test_an_expired_link_opens_nothing(link):
    row, key = link
    ShareLink.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    assert Client().get(f"/shared/{key}/").status_code == 410


def test_an_unknown_key_is_not_found(link):
    _, key = link

    assert Client().get(f"/shared/{key[:-2]}xx/").status_code == 404


def test_every_opening_is_logged_with_what_and_from_where(link, pdf):
    row, key = link
    client = Client(HTTP_USER_AGENT="AuditBrowser/1.0")

    client.get(f"/shared/{key}/")
    client.get(f"/shared/{key}/report.pdf")
    client.get(f"/shared/{key}/adr.md")

    log = list(ShareAccess.objects.filter(link=row).order_by("id"))
    assert [entry.kind for entry in log] == ["page", "pdf", "adr"]
    assert {entry.address for entry in log} == {"127.0.0.1"}
    assert {entry.user_agent for entry in log} == {"AuditBrowser/1.0"}


def test_links_are_listed_on_the_decision_with_their_use_count(link, cast, decision):
    _, key = link
    Client().get(f"/shared/{key}/")
    client = Client()
    client.force_login(cast.dave)  # a viewer sees the list

    response = client.get(reverse("evaluations:decision", args=[decision.pk]))

    text = response.content.decode()
    assert "Auditor, Example Corp" in text
    assert "opened 1 time" in text


def test_an_editor_creates_a_link_on_the_page_and_sees_it_once(cast, decision):
    client = Client()
    client.force_login(cast.bob)
    url = reverse("evaluations:shares", args=[decision.pk])

    created = client.post(url, {"label": "Vendor review", "days": "30"})
    listed = client.get(url)

    assert created.status_code == 201
    shared_url = re.search(r'value="(http://testserver/shared/[^"]+)"', created.content.decode())
    assert shared_url
    assert Client().get(shared_url.group(1)).status_code == 200
    assert shared_url.group(1) not in listed.content.decode()  # shown only once
    entry = AuditEntry.objects.filter(evaluation=decision, action="share_created").get()
    assert entry.actor == cast.bob
    assert entry.changes == {"shared_with": "Vendor review", "days": 30}


def test_a_viewer_cannot_create_or_revoke_links(cast, decision, link):
    row, _ = link
    with pytest.raises(NotAllowed):
        share_link_create(evaluation=decision, actor=cast.dave, label="x", days=7)
    client = Client()
    client.force_login(cast.dave)

    response = client.post(reverse("evaluations:share-revoke", args=[decision.pk, row.pk]))

    assert response.status_code == 403
    row.refresh_from_db()
    assert row.revoked_at is None


def test_another_team_cannot_see_or_revoke_the_links(cast, decision, link):
    row, _ = link
    client = Client()
    client.force_login(cast.charlie)

    assert client.get(reverse("evaluations:shares", args=[decision.pk])).status_code == 404
    revoke = client.post(reverse("evaluations:share-revoke", args=[decision.pk, row.pk]))
    assert revoke.status_code == 404


def test_a_link_lasts_at_most_ninety_days(cast, decision):
    client = Client()
    client.force_login(cast.bob)

    response = client.post(
        reverse("evaluations:shares", args=[decision.pk]), {"label": "x", "days": "365"}
    )

    assert response.status_code == 400
    assert not ShareLink.objects.exists()
