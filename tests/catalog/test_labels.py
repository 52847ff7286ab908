"""Pages name vocabulary keys, contract identifiers and evidence links instead of raw keys."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.template import Context, Template
from django.utils import translation

from catalog.engine.text import _, joined
from catalog.evidence import evidence_label
from catalog.templatetags.labels import VOCABULARY_CACHE_KEY, say_html, term_label

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_vocabulary_cache():
    cache.delete(VOCABULARY_CACHE_KEY)
    yield
    cache.delete(VOCABULARY_CACHE_KEY)


def rendered(source: str, **context) -> str:
    return Template("{% load labels %}" + source).render(Context(context))


def test_a_layer_key_reads_as_its_name_in_english_and_chinese():
    with translation.override("en"):
        assert rendered('{{ key|term:"layer" }}', key="data_plane") == "Data plane"
    with translation.override("zh-hans"):
        assert rendered('{{ key|term:"layer" }}', key="data_plane") == "数据平面"


def test_a_unit_list_reads_as_names_joined_with_commas():
    keys = ["memory_compute_quota", "mig_slice"]

    with translation.override("en"):
        assert rendered('{{ keys|terms:"unit" }}', keys=keys) == "Memory + compute quota, MIG slice"
    with translation.override("zh-hans"):
        assert rendered('{{ keys|terms:"unit" }}', keys=keys) == "显存 + 算力配额, MIG 切片"


def test_the_kind_decides_between_a_unit_and_an_isolation_level_named_none():
    with translation.override("en"):
        assert term_label("none", "unit") == "No unit"
        assert term_label("none", "isolation") == "none"


def test_an_edited_vocabulary_name_shows_once_the_cache_is_cleared():
    from catalog.models import Layer

    Layer.objects.filter(key="platform").update(name_en="Platform layer")

    with translation.override("en"):
        assert term_label("platform", "layer") == "Platform layer"


def test_a_key_nobody_named_is_shown_as_it_is():
    assert term_label("quantum_slice", "unit") == "quantum_slice"


def test_a_capability_reads_as_words_with_its_kind():
    with translation.override("en"):
        html = rendered("{{ id|interface }}", id="capability:gang-scheduling")

    assert "capability" in html and "gang scheduling" in html
    assert 'gang-scheduling"' in html  # the identifier stays in the title for those who type it
    assert ">capability:gang-scheduling<" not in html


def test_a_resource_name_stays_verbatim_in_code():
    with translation.override("en"):
        html = rendered("{{ id|interface }}", id="resource:nvidia.com/gpu")

    assert "<code" in html and ">nvidia.com/gpu</code>" in html
    assert "resource" in html


def test_an_identifier_is_escaped():
    html = rendered("{{ id|interface }}", id="crd:<script>x</script>")

    assert "<script>" not in html


def test_an_engine_sentence_names_the_units_and_capabilities_it_mentions():
    sentence = _(
        "%(row)s presents %(units)s and provides %(caps)s",
        row="Volcano <scheduler>",
        units="memory_compute_quota, mig_slice",
        caps="capability:gang-scheduling, capability:quota",
    )

    with translation.override("en"):
        html = str(say_html(sentence))

    assert "Memory + compute quota, MIG slice" in html
    assert "gang scheduling" in html and "capability:gang-scheduling<" not in html
    assert "Volcano &lt;scheduler&gt;" in html  # names from the catalog are escaped


def test_an_engine_sentence_keeps_ordinary_words_that_are_also_keys():
    sentence = _("fault isolation is %(level)s", level="none")

    with translation.override("en"):
        assert str(say_html(sentence)) == "fault isolation is none"


def test_enforcement_points_said_together_are_named():
    sentence = _("enforcing at %(points)s", points="admission, scheduler")

    with translation.override("en"):
        assert str(say_html(sentence)) == "enforcing at Admission control, Kubernetes scheduler"


def test_a_list_cut_short_keeps_its_ellipsis():
    sentence = joined(" ", [_("through %(ids)s", ids="resource:nvidia.com/gpu, resource:x.io/y …")])

    with translation.override("en"):
        html = str(say_html(sentence))

    assert ">nvidia.com/gpu</code>" in html and ">x.io/y</code>" in html and html.endswith("…")


def test_a_workload_kind_the_engine_said_reads_as_its_name():
    with translation.override("en"):
        assert str(say_html(_("online_inference"))) == "online inference"


@pytest.mark.parametrize(
    ("url", "label"),
    [
        (
            "https://github.com/NVIDIA/dcgm-exporter/blob/4.5.3-4.8.2/pkg/cmd/app.go#L329-L334",
            "NVIDIA/dcgm-exporter · …/cmd/app.go L329–334",
        ),
        (
            "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md#L12",
            "Project-HAMi/HAMi · README.md L12",
        ),
        (
            "https://github.com/nebuly-ai/nos/commit/12e0a7289f5b9bc3fa8",
            "nebuly-ai/nos · commit 12e0a72",
        ),
        ("https://github.com/kubevirt/kubevirt", "kubevirt/kubevirt"),
        ("https://www.kubernetes.io/", "kubernetes.io"),
        (
            "https://docs.nvidia.com/run-ai/docs/gpu-fractions/dynamic-memory-fractions.md",
            "docs.nvidia.com · …/gpu-fractions/dynamic-memory-fractions.md",
        ),
        ("not a url", "not a url"),
    ],
)
def test_an_evidence_link_reads_as_repository_and_file_not_a_bare_host(url, label):
    assert evidence_label(url) == label


def test_the_placement_card_names_its_evidence_and_contracts(bob_client, builtin_catalog):
    with translation.override("en"):
        page = bob_client.get(
            "/catalog/projects/volcano/", HTTP_ACCEPT_LANGUAGE="en"
        ).content.decode()

    assert "gang scheduling" in page
    assert ">github.com</a>" not in page
    assert "volcano-sh/volcano · " in page


def test_a_function_named_inside_a_sentence_is_lower_case():
    sentence = _("the same job (%(jobs)s)", jobs="preemption, fair_sharing")

    with translation.override("en"):
        assert str(say_html(sentence)) == "the same job (preemption, fair sharing)"


def test_step_2_explains_each_level_it_shows(bob, bob_client, builtin_catalog):
    from evaluations.models import Evaluation

    call_command("seed_demo_team", bob.username, verbosity=0)
    evaluation = Evaluation.objects.get(state="draft")  # the sample left for the user to fill

    page = bob_client.get(f"/evaluations/{evaluation.pk}/steps/2/", HTTP_ACCEPT_LANGUAGE="en")

    legend = page.content.decode().split('class="legend"', 1)[1].split("</details>", 1)[0]
    for level in ("hard", "soft", "none", "low", "medium", "high"):
        assert f">{level}</span>" in legend
    assert "must be drained" in legend
    assert '<code class="muted">mig_slice</code>' not in page.content.decode()
