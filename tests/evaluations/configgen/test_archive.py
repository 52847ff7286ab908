"""`GET /api/v1/evaluations/{id}/config.tar.gz` and `export_config --tar`: the files of the JSON
endpoint as one gzip tar, the same bytes for the same decision, under the API's permissions."""

from __future__ import annotations

import gzip
import io
import tarfile
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from evaluations.configgen.archive import config_archive
from evaluations.configgen.model import GeneratedFile
from evaluations.decisions.models import Decision
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _url(evaluation) -> str:
    return f"/api/v1/evaluations/{evaluation.pk}/config.tar.gz"


def _members(body: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:gz") as archive:
        return {member.name: member for member in archive.getmembers()}


def _contents(body: bytes) -> dict[str, str]:
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:gz") as archive:
        return {
            member.name: archive.extractfile(member).read().decode("utf-8")
            for member in archive.getmembers()
        }


def test_the_archive_holds_exactly_the_files_of_the_json_endpoint(demo_member, approved, client):
    client.force_login(demo_member)
    files = client.get(f"/api/v1/evaluations/{approved.pk}/config/").json()["files"]

    response = client.get(_url(approved))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    top = f"evaluation-{approved.pk}-config"
    assert response["Content-Disposition"] == f'attachment; filename="{top}.tar.gz"'
    assert _contents(response.content) == {f"{top}/{f['path']}": f["content"] for f in files}


def test_the_archive_members_are_plain_files_dated_by_the_approval(demo_member, approved, client):
    client.force_login(demo_member)
    approved_at = Decision.objects.get(evaluation=approved).approved_at
    assert approved_at is not None  # the demo's decision is signed

    body = client.get(_url(approved)).content

    members = _members(body).values()
    assert {m.type for m in members} == {tarfile.REGTYPE}
    assert {m.mode for m in members} == {0o644}
    assert {m.mtime for m in members} == {int(approved_at.timestamp())}
    assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
    for member in members:
        assert not member.name.startswith("/") and ".." not in member.name.split("/")
    # The gzip header's own date (RFC 1952 MTIME, bytes 4-7) is the same fixed time.
    assert int.from_bytes(body[4:8], "little") == int(approved_at.timestamp())


def test_the_same_decision_gives_the_same_bytes(demo_member, approved, client):
    client.force_login(demo_member)
    first = client.get(_url(approved)).content
    # Nothing in the decision changes; only the clock moves on.
    Decision.objects.filter(evaluation=approved).update(
        decided_at=timezone.now() + timedelta(days=3)
    )

    assert client.get(_url(approved)).content == first


def test_an_unapproved_decision_is_dated_by_its_last_update(demo_member, approved, client):
    client.force_login(demo_member)
    decided_at = timezone.now() - timedelta(days=2)
    Decision.objects.filter(evaluation=approved).update(approved_at=None, decided_at=decided_at)

    members = _members(client.get(_url(approved)).content).values()

    assert {m.mtime for m in members} == {int(decided_at.timestamp())}


def test_another_team_gets_404(demo_member, approved, client):
    client.force_login(make_user("mallory"))

    response = client.get(_url(approved))

    assert response.status_code == 404
    assert set(response.json()) >= {"detail"}


def test_anonymous_gets_401(approved, client):
    response = client.get(_url(approved))

    assert response.status_code == 401
    assert "detail" in response.json()


def test_an_evaluation_without_a_decision_gets_409_with_the_reason(demo_member, undecided, client):
    client.force_login(demo_member)

    response = client.get(_url(undecided))

    assert response.status_code == 409
    body = response.json()
    assert "no decision yet" in body["detail"]
    assert body["errors"] == [{"path": "$", "message": body["detail"]}]


def test_the_archive_is_fetched_with_an_api_token(demo_member, approved, client):
    from ecomap.tokens import token_create_for

    key = token_create_for(user=demo_member).key

    response = client.get(_url(approved), HTTP_AUTHORIZATION=f"Token {key}")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"


def test_the_schema_documents_the_archive_and_its_errors(demo_member, client):
    client.force_login(demo_member)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    operation = schema["paths"]["/api/v1/evaluations/{id}/config.tar.gz"]["get"]
    assert {"200", "401", "404", "409"} <= set(operation["responses"])
    assert "application/gzip" in operation["responses"]["200"]["content"]


def test_a_path_that_climbs_out_of_the_archive_is_refused():
    climbing = GeneratedFile(path="../etc/passwd", kind="kueue", documents=[])
    absolute = GeneratedFile(path="/etc/passwd", kind="kueue", documents=[])

    for file in (climbing, absolute):
        with pytest.raises(ValueError, match="path"):
            config_archive([file], top="evaluation-1-config", mtime=0)


def test_export_config_writes_the_archive(demo_member, approved, client, tmp_path):
    client.force_login(demo_member)
    served = client.get(_url(approved)).content

    call_command("export_config", str(approved.pk), "--tar", str(tmp_path / "config.tar.gz"))

    assert (tmp_path / "config.tar.gz").read_bytes() == served
    assert gzip.decompress(served)  # a real gzip stream


def test_export_config_tar_refuses_an_evaluation_without_a_decision(undecided, tmp_path):
    with pytest.raises(CommandError, match="no decision yet"):
        call_command("export_config", str(undecided.pk), "--tar", str(tmp_path / "c.tar.gz"))
    assert not (tmp_path / "c.tar.gz").exists()
