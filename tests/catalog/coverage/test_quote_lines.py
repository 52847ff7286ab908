"""The quote-in-lines check behind scripts/check-quote-lines (issue 43)."""

from __future__ import annotations

from catalog.coverage.quote_lines import Cited, check_quote, cited_lines, quote_in, quote_span

FILE = [
    "# Install",  # 1
    "",  # 2
    "The GPU Operator can now deploy and manage the",  # 3
    "[AMD GPU DRA Driver](https://github.com/ROCm/k8s-gpu-dra-driver) as an alternative",  # 4
    "to the traditional Kubernetes Device Plugin.",  # 5
    "",  # 6
    "New `spec.draDriver` section in `DeviceConfig`.",  # 7
]


def test_a_blob_url_with_a_line_range_is_cited_lines():
    cited = cited_lines("https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/notes.md#L61-L62")

    assert cited == Cited("ROCm/gpu-operator", "v1.5.1", "docs/notes.md", 61, 62)


def test_a_single_line_anchor_is_a_range_of_one():
    cited = cited_lines("https://github.com/o/n/blob/v1/a.go#L7")

    assert (cited.first, cited.last) == (7, 7)


def test_a_url_without_a_line_range_is_not_checked():
    assert cited_lines("https://github.com/o/n/blob/v1/README.md") is None
    assert cited_lines("https://docs.example.org/page#L3") is None


def test_case_markup_links_and_line_breaks_do_not_count():
    assert quote_in(
        "\n".join(FILE), "deploy and manage the AMD GPU DRA Driver as an alternative to the"
    )


def test_fragments_cut_with_an_ellipsis_must_appear_in_order():
    text = "\n".join(FILE)

    assert quote_in(text, "The GPU Operator can now deploy ... New spec.draDriver section")
    assert not quote_in(text, "New spec.draDriver section ... The GPU Operator can now deploy")


def test_a_fragment_matches_whole_words_only():
    assert not quote_in("two GPUs each", "GPU")


def test_the_shortest_span_holding_the_quote_is_found():
    assert quote_span(FILE, "as an alternative to the traditional") == (4, 5)
    assert quote_span(FILE, "not in the file") is None


def test_a_quote_within_its_cited_lines_is_ok():
    cited = Cited("o/n", "v1", "notes.md", 3, 5)

    assert (
        check_quote(FILE, cited, "an alternative to the traditional Kubernetes Device Plugin")[0]
        == "ok"
    )


def test_a_quote_a_few_lines_off_says_where_it_is():
    cited = Cited("o/n", "v1", "notes.md", 3, 5)

    status, why = check_quote(FILE, cited, "New spec.draDriver section in DeviceConfig")

    assert status == "off"
    assert "found at L7-L7" in why


def test_a_paraphrase_is_off_and_said_to_be_absent_from_the_file():
    status, why = check_quote(
        FILE, Cited("o/n", "v1", "notes.md", 3, 5), "the operator installs DRA"
    )

    assert status == "off"
    assert "not in notes.md" in why
