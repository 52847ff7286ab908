"""The Configuration page in a real browser: a team member opens it from the decision, copies a
file with its Copy button (the clipboard holds the file) and downloads the whole archive."""

from __future__ import annotations

import io
import tarfile

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from evaluations.configgen.selectors import evaluation_config
from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def approved(bob) -> Evaluation:
    call_command("load_catalog", verbosity=0)
    call_command("seed_demo_team", bob.username, verbosity=0)
    return Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )


def test_a_member_copies_a_file_and_downloads_the_archive(
    signed_in_page, live_server, approved, console_errors, screenshot
):
    page = signed_in_page
    files = evaluation_config(approved)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.set_viewport_size({"width": 1366, "height": 1000})

    page.goto(f"{live_server.url}/evaluations/{approved.pk}/decision/")
    page.click(f"a[href='/evaluations/{approved.pk}/configuration/']")
    expect(page.locator(".config-file")).to_have_count(len(files))
    screenshot(page, "configuration")  # docs/images/configuration.png

    # Copy the Kueue ClusterQueues: the clipboard holds the file, the button says so.
    number = next(i for i, f in enumerate(files, 1) if f.path == "kueue/cluster-queues.yaml")
    section = page.locator(f"#config-file-{number}")
    section.get_by_role("button", name="Copy").click()
    expect(section.locator(".config-copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == files[number - 1].content
    page.evaluate(f"document.getElementById('config-file-{number}').scrollIntoView()")
    page.evaluate("window.scrollBy(0, -80)")  # below the sticky top bar
    screenshot(page, "configuration-copied")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download all (.tar.gz)").click()
    download = download_info.value
    assert download.suggested_filename == f"evaluation-{approved.pk}-config.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(download.path().read_bytes()), mode="r:gz") as archive:
        names = archive.getnames()
    assert names == [f"evaluation-{approved.pk}-config/{f.path}" for f in files]
    assert console_errors == []


def test_long_lines_scroll_inside_their_block_on_a_phone(
    signed_in_page, live_server, approved, screenshot
):
    page = signed_in_page
    page.set_viewport_size({"width": 390, "height": 844})

    page.goto(f"{live_server.url}/evaluations/{approved.pk}/configuration/")

    # The page itself never scrolls sideways; a <pre> wider than the screen scrolls inside.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    widths = page.eval_on_selector_all(
        "pre.config-content", "blocks => blocks.map(b => [b.scrollWidth, b.clientWidth])"
    )
    assert any(scroll > client for scroll, client in widths)  # YAML comments are long
    page.evaluate("document.querySelector('.config-download').scrollIntoView()")
    page.evaluate("window.scrollBy(0, -180)")  # below the sticky top bar (three lines here)
    screenshot(page, "configuration-phone")  # docs/images/configuration-phone.png
