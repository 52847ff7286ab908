"""The PDF itself: what pdftotext reads in it, its pages, the embedded CJK font, page images."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import translation

from evaluations import services
from evaluations.reports.content import render_report, report_context
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

# The marker also tells pytest-django to create the test database for the module fixtures.
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        not shutil.which("pdftotext"), reason="needs poppler-utils (scripts/system-deps)"
    ),
]

CHINESE_RATIONALE = "HAMi 负责显存与算力切分，Volcano 负责队列与配额：两者组合而非竞争。"


def _poppler(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout  # noqa: S603


def _built(tmp_path_factory, name: str, build) -> Path:
    """Build data and a PDF inside a transaction that is rolled back: the database stays clean."""
    path = tmp_path_factory.mktemp("reports") / f"{name}.pdf"
    with transaction.atomic():
        context, language = build()
        with translation.override(language):
            rendered = render_report(report_context(**context))
        path.write_bytes(rendered.pdf)
        transaction.set_rollback(True)
    return path


@pytest.fixture(scope="module")
def sample_pdf(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    """An approved evaluation of the small catalog, with its map drawn by kaleido."""

    def build():
        small_catalog()
        cast = make_cast()
        evaluation = fill_steps(make_evaluation(cast), cast.bob)
        services.evaluation_submit(evaluation=evaluation, actor=cast.bob)
        services.evaluation_review(
            evaluation=evaluation, actor=cast.carol, verdict="approve", comment="Ship it."
        )
        return {"evaluation": evaluation}, "en"

    with django_db_blocker.unblock():
        return _built(tmp_path_factory, "sample", build)


@pytest.fixture(scope="module")
def chinese_pdf(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    def build():
        small_catalog()
        cast = make_cast()
        evaluation = fill_steps(make_evaluation(cast, title="GPU 共享评审 2027"), cast.bob)
        services.evaluation_decide(
            evaluation=evaluation,
            actor=cast.bob,
            rows=["hami/device-plugin", "volcano/scheduler"],
            rationale=CHINESE_RATIONALE,
        )
        return {"evaluation": evaluation, "with_map": False}, "zh-hans"

    with django_db_blocker.unblock():
        return _built(tmp_path_factory, "chinese", build)


def test_the_report_names_the_candidate_projects(sample_pdf):
    text = _poppler("pdftotext", "-layout", str(sample_pdf), "-")

    for name in ("HAMi", "Volcano"):
        assert name in text


def test_the_report_states_the_decision_and_its_rationale(sample_pdf):
    text = _poppler("pdftotext", str(sample_pdf), "-")

    assert "hami/device-plugin" in text
    assert "HAMi shares, Volcano governs." in text


def test_the_report_names_the_authors_and_the_reviewers(sample_pdf):
    text = _poppler("pdftotext", str(sample_pdf), "-")

    assert "bob-editor" in text
    assert "carol-reviewer" in text
    assert "Ship it." in text


def test_the_report_has_a_sane_number_of_pages(sample_pdf):
    info = _poppler("pdfinfo", str(sample_pdf))
    pages = int(next(line for line in info.splitlines() if line.startswith("Pages:")).split()[1])

    # Cover and contents, a page each for the profile, the cards, the map, the matrix with the
    # comparison, the decision with the review trail, and the evidence.
    assert 6 <= pages <= 12


def test_the_contents_point_at_the_pages_of_the_chapters(sample_pdf):
    first_page = _poppler("pdftotext", "-f", "1", "-l", "1", "-layout", str(sample_pdf), "-")

    assert "Compatibility matrix of the candidates" in first_page
    assert ". . ." in first_page  # the leaders to the page numbers


def test_every_page_footer_names_the_catalog_revision(sample_pdf):
    second_page = _poppler("pdftotext", "-f", "2", "-l", "2", str(sample_pdf), "-")

    assert "catalog revision" in second_page
    assert re.search(r"\b2\s*/\s*\d+\b", second_page)


def test_the_map_is_drawn_into_the_report(sample_pdf):
    text = _poppler("pdftotext", str(sample_pdf), "-")

    assert "could not be drawn" not in text


def test_a_chinese_evaluation_keeps_its_chinese_text(chinese_pdf):
    text = _poppler("pdftotext", str(chinese_pdf), "-")

    assert "GPU 共享评审 2027" in text
    # pdftotext may break the line anywhere; compare without whitespace.
    assert "".join(CHINESE_RATIONALE.split()) in "".join(text.split())


def test_a_chinese_report_embeds_a_noto_cjk_font(chinese_pdf):
    fonts = _poppler("pdffonts", str(chinese_pdf))

    cjk = [line for line in fonts.splitlines() if "NotoSansCJK" in line.replace("-", "")]
    assert cjk, fonts
    assert all(" yes " in line for line in cjk)  # embedded (and subset)


def test_pages_render_to_images(sample_pdf, tmp_path):
    _poppler(
        "pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "3", str(sample_pdf), str(tmp_path / "p")
    )

    assert len(list(tmp_path.glob("p-*.png"))) == 3


def test_the_report_fetches_only_data_urls():
    from evaluations.reports.content import report_url_fetcher

    fetcher = report_url_fetcher()
    for url in ("file:///etc/passwd", "http://127.0.0.1:8999/x.svg", "https://evil.example/f"):
        with pytest.raises(ValueError, match="disallowed protocol"):
            fetcher.fetch(url)
    assert fetcher.fetch("data:text/plain;base64,aGk=") is not None
