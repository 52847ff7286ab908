"""Engine sentences: English as plain strings, and again in another language from their parts."""

import copy
import json
import pickle

from catalog.engine.text import Text, _, joined, render

ZH = {
    "%(a)s and %(b)s are not competitors": "%(a)s 与 %(b)s 不是竞品",
    "%(row)s (%(layer)s)": "%(row)s（%(layer)s）",
    "data plane": "数据平面",
    "control plane": "控制面",
}


def zh(template: str) -> str:
    return ZH.get(template, template)


def sentence() -> Text:
    return _(
        "%(a)s and %(b)s are not competitors",
        a=_("%(row)s (%(layer)s)", row="HAMi", layer=_("data plane")),
        b=_("%(row)s (%(layer)s)", row="Volcano", layer=_("control plane")),
    )


def test_a_sentence_is_its_english_text():
    text = sentence()

    assert text == "HAMi (data plane) and Volcano (control plane) are not competitors"
    assert isinstance(text, str)
    assert json.dumps({"message": text}) == json.dumps({"message": str(text)})


def test_it_is_said_again_in_another_language_part_by_part():
    assert render(sentence(), zh) == "HAMi（数据平面） 与 Volcano（控制面） 不是竞品"


def test_plain_strings_and_untranslated_templates_pass_through():
    assert render("already a string", zh) == "already a string"
    assert render(_("no translation for %(x)s", x=1), zh) == "no translation for 1"


def test_a_translation_that_lost_a_placeholder_falls_back_to_english():
    def broken(template: str) -> str:
        return "%(nope)s" if template.startswith("%(a)s") else template

    assert render(sentence(), broken) == str(sentence())


def test_joined_parts_stay_translatable():
    text = joined("; ", [_("data plane"), _("control plane"), "100% literal"])

    assert text == "data plane; control plane; 100% literal"
    assert render(text, zh) == "数据平面; 控制面; 100% literal"
    assert joined(", ", []) == ""


def test_copies_and_pickles_keep_the_parts():
    for twin in (copy.deepcopy(sentence()), pickle.loads(pickle.dumps(sentence()))):  # noqa: S301
        assert twin == sentence()
        assert render(twin, zh) == render(sentence(), zh)
