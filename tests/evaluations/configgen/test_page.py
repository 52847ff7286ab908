"""The Configuration page of a decision: every generated file with its path, kind and content, a
Copy button each, the archive's download link; the reason when there is nothing to generate."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from evaluations.configgen.selectors import evaluation_config
from evaluations.decisions.models import Decision
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _url(evaluation) -> str:
    return f"/evaluations/{evaluation.pk}/configuration/"


def test_the_page_shows_every_file_with_its_kind_content_and_a_copy_button(
    demo_member, approved, client
):
    client.force_login(demo_member)
    files = evaluation_config(approved)

    response = client.get(_url(approved))

    assert response.status_code == 200
    page = response.content.decode()
    for number, file in enumerate(files, start=1):
        assert f'id="config-file-{number}"' in page
        assert f"<code>{file.path}</code>" in page
        assert f'data-kind="{file.kind}"' in page
        assert escape(file.content) in page
        assert f'data-copy-target="config-file-{number}-content"' in page
    assert page.count("data-copy-target=") == len(files)


def test_the_page_links_the_archive_and_loads_its_script(demo_member, approved, client):
    client.force_login(demo_member)

    page = client.get(_url(approved)).content.decode()

    archive = reverse("evaluations-api:evaluation-config-archive", args=[approved.pk])
    assert archive == f"/api/v1/evaluations/{approved.pk}/config.tar.gz"
    assert f'href="{archive}"' in page
    assert "Download all (.tar.gz)" in page
    assert "/static/js/configuration.js" in page  # the copy buttons' script, no inline script


def test_the_decision_page_links_the_configuration(demo_member, approved, client):
    client.force_login(demo_member)

    page = client.get(f"/evaluations/{approved.pk}/decision/").content.decode()

    assert f'href="{_url(approved)}"' in page


def test_without_a_decision_the_page_says_why(demo_member, undecided, client):
    client.force_login(demo_member)

    response = client.get(_url(undecided))

    assert response.status_code == 200
    page = response.content.decode()
    assert "no decision yet" in page
    assert "data-copy-target" not in page
    assert "config.tar.gz" not in page
    assert f'href="/evaluations/{undecided.pk}/decision/"' in page


def test_a_decision_that_cannot_be_generated_shows_the_reason_not_a_500(
    demo_member, approved, client
):
    client.force_login(demo_member)
    # A display name is written as its slug (issue 42); two that give the same slug cannot be.
    Decision.objects.filter(evaluation=approved).update(
        pools={"Inference Pool": ["hami/device-plugin"], "inference-pool": []}
    )

    response = client.get(_url(approved))

    assert response.status_code == 200
    assert "the same label value" in response.content.decode()
    assert "data-copy-target" not in response.content.decode()


def test_the_reason_a_decision_cannot_be_generated_speaks_chinese(demo_member, approved, client):
    """The refusal is an engine sentence: said again in the reader's language, its parts (the
    hostile name) still escaped; the API keeps answering in English."""
    client.force_login(demo_member)
    client.cookies.load({"django_language": "zh-hans"})
    Decision.objects.filter(evaluation=approved).update(
        pools={"<b>Pool</b>": ["hami/device-plugin"], "b-pool-b": []}
    )

    page = client.get(_url(approved)).content.decode()

    assert "写成 Kubernetes 名称后标签值相同：&lt;b&gt;Pool&lt;/b&gt;, b-pool-b" in page
    assert "the same label value" not in page
    assert "<b>Pool</b>" not in page
    api = client.get(f"/api/v1/evaluations/{approved.pk}/config/")
    assert api.status_code == 409
    assert "the same label value" in api.json()["detail"]


def test_another_team_gets_404(demo_member, approved, client):
    client.force_login(make_user("mallory"))

    assert client.get(_url(approved)).status_code == 404


def test_the_page_speaks_chinese(demo_member, approved, client):
    client.force_login(demo_member)
    client.cookies.load({"django_language": "zh-hans"})

    page = client.get(_url(approved)).content.decode()

    assert "下载全部（.tar.gz）" in page
    assert ">复制<" in page
    assert "Download all" not in page


def test_without_a_decision_the_reason_speaks_chinese(demo_member, undecided, client):
    client.force_login(demo_member)
    client.cookies.load({"django_language": "zh-hans"})

    page = client.get(_url(undecided)).content.decode()

    assert "该评估还没有决策" in page
    assert "暂时无法生成配置" in page


def test_the_page_gives_the_commands_from_the_archive_to_install_sh(demo_member, approved, client):
    # The README's path: unpack, enter the archive's directory, name each pool's nodes in the
    # variable install.sh asks for (its guard line) and run it.
    client.force_login(demo_member)

    page = client.get(_url(approved)).content.decode()

    top = f"evaluation-{approved.pk}-config"
    assert f"tar xzf {top}.tar.gz && cd {top}\n" in page
    assert 'NODES_SHARED="node-a node-b" sh install.sh' in page
