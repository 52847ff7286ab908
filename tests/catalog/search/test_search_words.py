"""What a query asks for, in English or Chinese, and how matches are marked (no database)."""

from __future__ import annotations

from catalog.engine.query_words import excerpt, glossary_with_labels, highlight, search_terms

# The vocabulary's labels as catalog/vocabulary.py seeds them (key, English, Chinese).
LABELS = [
    ("gang", "Gang scheduling", "成组调度"),
    ("isolate", "Isolation", "隔离"),
    ("vgpu", "vGPU", "vGPU"),
]
GLOSSARY = glossary_with_labels(LABELS)


def terms(text: str):
    return search_terms(text, GLOSSARY)


def test_a_chinese_label_stands_for_its_vocabulary_key():
    assert "gang" in terms("成组调度").related


def test_a_chinese_phrase_is_cut_into_the_words_it_is_made_of():
    found = terms("租户隔离")
    assert {"tenant", "hard", "isolation"} <= set(found.related)


def test_the_english_label_of_a_term_finds_its_key():
    assert "gang" in terms("gang scheduling").all_words


def test_fractional_gpus_stand_for_the_units_smaller_than_a_gpu():
    # DESIGN.md's resource units: everything but whole_gpu and none divides a GPU.
    related = set(terms("fractional GPU").related)
    assert {"mig_slice", "time_slice", "mps_share", "memory_compute_quota", "vgpu"} <= related


def test_words_every_catalog_text_holds_do_not_rank_beside_others():
    assert terms("fractional GPU notebooks").words == ("fractional", "notebooks")
    assert terms("GPU").words == ("gpu",)


def test_a_phrase_is_one_thing_asked_for():
    assert [word for word, _ in terms("tenant isolation").groups] == ["tenant"]


def test_highlighting_marks_the_words_and_escapes_everything_else():
    text = '<img src=x onerror="alert(1)"> Gang scheduling for <b>pods</b>'
    html = highlight(text, terms("gang"))
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; <mark>Gang</mark>" in html


def test_highlighting_marks_other_forms_of_a_word():
    html = highlight("Notebook users share GPUs; sharing is fractional.", terms("notebooks"))
    assert "<mark>Notebook</mark>" in html


def test_an_identifier_is_marked_however_it_is_written():
    html = highlight("a time-slice of the GPU", terms("fractional"))
    assert "<mark>time-slice</mark>" in html


def test_an_excerpt_is_a_window_around_the_first_match():
    text = "word " * 100 + "gang scheduling of pods " + "word " * 100
    shown = excerpt(text, terms("gang"), width=80)
    assert shown.startswith("…") and shown.endswith("…")
    assert "<mark>gang</mark>" in shown and len(shown) < 140


def test_nothing_to_search_for_in_punctuation():
    assert terms(" ;;; ").empty
