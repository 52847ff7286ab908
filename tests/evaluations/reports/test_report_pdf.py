"""The PDF itself: what pdftotext reads in it, its pages, the embedded CJK font, page images."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from catalog.models import PlacementRow
from evaluations.audit.labels import audit_action_label
from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation, Step
from evaluations.reports.content import TEMPLATE, render_report, report_context
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

# The marker also tells pytest-django to create the test database for the module fixtures.
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        not shutil.which("pdftotext"), reason="needs poppler-utils (scripts/system-deps)"
    ),
]

CHINESE_RATIONALE = "HAMi 负责显存与算力切分，Volcano 负责队列与配额：两者组合而非竞争。"
RISKS = (
    "- 静态链接的 CUDA 程序可绕过 HAMi 的限制\n\n"
    "* Volcano 队列配额需与节点池同步\n"
    "DCGM 指标最多延迟 30 秒"
)
CHECKS = "1. 两个推理 Pod 共享一张 GPU\n2. 8 个 worker 的 gang 要么全部启动要么都不启动"
HAMI_EVIDENCE = [
    {"url": "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md#L12", "claim": "x"},
    {"url": "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/charts/hami/values.yaml#L25-L28"},
]


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
        evaluation_submit(evaluation=evaluation, actor=cast.bob)
        evaluation_review(
            evaluation=evaluation, actor=cast.carol, verdict="approve", comment="Ship it."
        )
        return {"evaluation": evaluation}, "en"

    with django_db_blocker.unblock():
        return _built(tmp_path_factory, "sample", build)


def _reviewed_in_chinese() -> Evaluation:
    """Decided in Chinese with risks and checks typed as a list, the candidates saved three
    times in a row (one audit line), submitted and approved."""
    small_catalog()
    PlacementRow.objects.filter(project__slug="hami").update(evidence=HAMI_EVIDENCE)
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast, title="GPU 共享评审 2027"), cast.bob)
    for group in ("A", "B", "C"):
        evaluation_step_save(
            evaluation=evaluation,
            actor=cast.bob,
            step="candidates",
            data={
                "candidates": [
                    {"row": "hami/device-plugin", "points_confirmed": True,
                     "alternative_group": group},
                    {"row": "volcano/scheduler", "points_confirmed": True},
                ]
            },
        )  # fmt: skip
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale=CHINESE_RATIONALE,
        risks=RISKS,
        acceptance_checks=CHECKS,
    )
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    return Evaluation.objects.get(pk=evaluation.pk)


@pytest.fixture(scope="module")
def chinese_pdf(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    def build():
        return {"evaluation": _reviewed_in_chinese(), "with_map": False}, "zh-hans"

    with django_db_blocker.unblock():
        return _built(tmp_path_factory, "chinese", build)


@pytest.fixture(scope="module")
def report_htmls(django_db_setup, django_db_blocker) -> dict[str, str]:
    """The report's HTML (what WeasyPrint is given) for the same evaluation, per language."""
    htmls = {}
    with django_db_blocker.unblock(), transaction.atomic():
        evaluation = _reviewed_in_chinese()
        for language in ("en", "zh-hans"):
            with translation.override(language):
                context = report_context(evaluation=evaluation, with_map=False)
                htmls[language] = render_to_string(TEMPLATE, context)
        transaction.set_rollback(True)
    return htmls


@pytest.fixture
def report_html(report_htmls) -> str:
    return report_htmls["en"]


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


def _flat(text: str) -> str:
    return "".join(text.split())


def test_risks_and_acceptance_checks_are_list_items_without_the_typed_bullets(report_html):
    risks = re.search(r'<ul class="items">(.*?)</ul>', report_html, re.S).group(1)
    checks = re.search(r'<ul class="items checks">(.*?)</ul>', report_html, re.S).group(1)

    assert re.findall(r"<li>(.*?)</li>", risks) == [
        "静态链接的 CUDA 程序可绕过 HAMi 的限制",
        "Volcano 队列配额需与节点池同步",
        "DCGM 指标最多延迟 30 秒",
    ]
    # the checklist draws its own boxes: the numbers the author typed are not repeated
    assert re.findall(r"<li>(.*?)</li>", checks) == [
        "两个推理 Pod 共享一张 GPU",
        "8 个 worker 的 gang 要么全部启动要么都不启动",
    ]


def test_evidence_links_read_as_repository_and_file_not_addresses(report_html):
    url = "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md#L12"

    assert f'<a href="{url}">README.md L12</a>' in report_html
    assert '<span class="where">Project-HAMi/HAMi</span>' in report_html
    assert report_html.count("Project-HAMi/HAMi</span>") == 1  # one line for both files
    assert f">{url}<" not in report_html


def test_the_audit_log_folds_repeats_into_one_line_with_a_count(report_html):
    rows = re.findall(r"<tr><td>[^<]*</td><td>bob-editor</td><td>(.*?)</td>", report_html)
    candidates = [row for row in rows if "Candidates and enforcement points" in row]

    # fill_steps' save, then three in a row: two lines, the second one "× 3"
    assert len(candidates) == 2
    assert any("× 3" in row for row in candidates)


def test_the_report_names_keys_instead_of_printing_them(sample_pdf, chinese_pdf):
    for pdf in (sample_pdf, chinese_pdf):
        text = _poppler("pdftotext", str(pdf), "-")

        for key in ("data_plane", "control_plane", "memory_compute_quota", "step_saved"):
            assert key not in text, key
        # named as "capability: gang scheduling", never the identifier itself
        assert not re.search(r"capability:\S", text)
        assert "in_review" not in text


def test_a_chinese_report_names_audit_actions_steps_and_states_in_chinese(chinese_pdf):
    text = _flat(_poppler("pdftotext", str(chinese_pdf), "-"))
    with translation.override("zh-hans"):
        approved = audit_action_label("approved")
        candidates_step = str(Step.CANDIDATES.label)

    assert approved != "approved" and approved in text
    assert _flat(f"{candidates_step} × 3") in text
    assert "approved" not in text


def test_a_chinese_report_embeds_the_simplified_chinese_face_only(chinese_pdf):
    fonts = _poppler("pdffonts", str(chinese_pdf))
    names = [line.split()[0] for line in fonts.splitlines()[2:]]

    assert any("Noto-Sans-CJK-SC" in name for name in names), fonts
    # The Noto CJK collection's other faces draw some characters the Japanese or Korean way.
    for other in ("CJK-JP", "CJK-KR", "CJK-TC", "CJK-HK"):
        assert not any(other in name for name in names), fonts


def test_a_chinese_report_says_its_language_the_way_fontconfig_knows_it(report_htmls):
    # Under "zh-hans" fontconfig prefers no Chinese face, and any text set in a generic
    # family comes out in the collection's first face, the Japanese one.
    assert '<html lang="zh-CN">' in report_htmls["zh-hans"]
    assert '<html lang="en">' in report_htmls["en"]
    assert "sans-serif" not in report_htmls["zh-hans"].split("</style>")[0]


def test_the_map_has_a_landscape_page_of_its_own(sample_pdf):
    info = _poppler("pdfinfo", "-f", "1", "-l", "99", str(sample_pdf))
    sizes = re.findall(r"Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+)", info)
    landscape = [int(page) for page, width, height in sizes if float(width) > float(height)]

    assert len(landscape) == 1
    page = str(landscape[0])
    text = _poppler("pdftotext", "-f", page, "-l", page, str(sample_pdf), "-")
    assert "The three-layer map" in text
