"""Coverage of the built-in catalog, and the three shapes of METHOD.md built from it."""

from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from catalog.coverage.markdown import coverage_markdown
from catalog.coverage.selectors import catalog_coverage
from catalog.stacks import stack_check

pytestmark = pytest.mark.django_db

DOCS = Path(settings.BASE_DIR) / "docs" / "catalog.md"


def test_the_coverage_page_shows_layers_units_and_no_unsourced_rows(bob_client, builtin_catalog):
    response = bob_client.get(reverse("catalog:coverage"))

    content = response.content.decode()
    assert response.status_code == 200
    assert "Placement rows per layer and resource unit" in content
    assert "every placement row carries evidence links" in content
    assert response.context["coverage"].total_projects >= 30


def test_the_coverage_page_lists_each_row_once_under_a_plain_title(bob_client, builtin_catalog):
    response = bob_client.get(reverse("catalog:coverage"))

    content = response.content.decode()
    title = content.split("<title>", 1)[1].split("</title>", 1)[0]
    assert "<" not in title and "Catalog coverage" in title
    assert content.count('id="verification"') == 1


def test_the_rows_table_comes_a_page_at_a_time_and_lists_every_row_once(
    bob_client, builtin_catalog
):
    refs = [row.ref for row in catalog_coverage().rows]
    shown = []
    for number in (1, 2):
        response = bob_client.get(reverse("catalog:coverage"), {"rows_page": number})
        table = response.content.decode().split('id="verification"', 1)[1]
        shown += [ref for ref in refs if f"<code>{ref}</code>" in table]

    assert len(refs) > 50  # the built-in catalog needs two pages
    assert sorted(shown) == sorted(refs)
    first = bob_client.get(reverse("catalog:coverage")).content.decode()
    assert "rows_page=2#verification" in first


def test_docs_catalog_md_is_generated_from_the_current_catalog(builtin_catalog):
    with translation.override("en"):
        expected = coverage_markdown(catalog_coverage())

    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/catalog.md is stale: python manage.py catalog_coverage --markdown docs/catalog.md"
    )


OPERATOR = "nvidia-gpu-operator:clusterpolicy"
# HAMi's vGPU path: the device plugin, the HAMi-core library it mounts and the scheduler that
# assigns its slices (its dynamic-MIG mode is another owner of the same GPUs, so a pool takes one
# or the other).
HAMI_VGPU = "hami:device-plugin,hami-core:libvgpu,hami:scheduler-extender"


@pytest.mark.parametrize(
    ("shape", "members", "pools"),
    [
        (
            "A: MIG + Volcano",
            [OPERATOR, "volcano:scheduler", "nvidia-mig", "nvidia-device-plugin:mig-mixed"],
            [],
        ),
        ("B: HAMi + Kueue", [OPERATOR, *HAMI_VGPU.split(","), "kueue"], []),
        (
            "C: MIG pool + HAMi pool + Volcano",
            [OPERATOR, "volcano:scheduler"],
            ["hard=nvidia-mig,nvidia-device-plugin:mig-mixed", f"shared={HAMI_VGPU}"],
        ),
    ],
)
def test_the_three_shapes_are_constructible_with_no_unmet_requirement(
    builtin_catalog, shape, members, pools
):
    _stack, report = stack_check(members=members, pools=pools)

    assert list(report.gaps) == [], shape
    assert list(report.conflicts) == [], shape
    assert report.ok
