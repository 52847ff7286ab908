"""Imports bound what a document may cost before anything walks it: YAML aliases are refused,
nesting, size and string length are capped, and every refusal is a recorded 400 job."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from catalog.imports.models import ImportJob
from catalog.imports.parsing import MAX_DEPTH, BundleParseError, parse_document

pytestmark = pytest.mark.django_db

# Nine levels of ten aliases each: a billion strings once expanded.
ALIAS_BOMB = "a: &a ['x','x','x','x','x','x','x','x','x','x']\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}{(',*' + chr(97 + i)) * 9}]\n" for i in range(8)
)


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def post(api, body: str, content_type: str):
    return api.generic("POST", "/api/v1/imports/", body, content_type=content_type)


def test_a_yaml_alias_bomb_is_refused_at_once_and_recorded(api):
    started = time.perf_counter()
    response = post(api, ALIAS_BOMB, "application/yaml")

    assert time.perf_counter() - started < 2
    assert response.status_code == 400
    message = response.json()["errors"][0]["message"]
    assert "aliases (*a) are not allowed at line 2" in message
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert len(str(job.errors)) < 1000


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 10_000])
def test_json_nested_too_deeply_is_a_400_not_a_500(api, depth):
    response = post(api, "[" * depth + "]" * depth, "application/json")

    assert response.status_code == 400
    assert "nested deeper than" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 10_000])
def test_yaml_nested_too_deeply_is_a_400_not_a_500(api, depth):
    response = post(api, "[" * depth + "]" * depth, "application/yaml")

    assert response.status_code == 400
    assert "nested deeper than" in response.json()["errors"][0]["message"]


def test_an_overlong_value_is_refused_and_its_echo_is_truncated():
    with pytest.raises(BundleParseError) as refused:
        parse_document('{"projects": ["' + "x" * 200_000 + '"]}')

    assert "longer than 100000 characters" in str(refused.value)
    assert len(str(refused.value)) < 200


def test_an_anchor_without_an_alias_is_harmless():
    assert parse_document("a: &first 1\nb: 2\n", hint="yaml") == {"a": 1, "b": 2}


def test_the_caps_are_exact_and_cover_keys_too(monkeypatch):
    import catalog.imports.parsing as parsing

    assert parse_document("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(BundleParseError, match="nested deeper than"):
        parse_document("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(BundleParseError, match="longer than 100000 characters"):
        parse_document('{"' + "k" * 100_001 + '": 1}')
    # {"a": [1, 2]} is five values: the mapping, its key, the list and its two items.
    monkeypatch.setattr(parsing, "MAX_NODES", 5)
    assert parse_document('{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(BundleParseError, match="holds more than 5 values"):
        parse_document('{"a": [1, 2, 3]}')


@pytest.mark.parametrize("body", ["\x03", "projects:\n- slug: \x07bell\n", "\ufffe"])
def test_yaml_with_control_characters_is_a_400_not_a_500(api, body):
    # Found by schemathesis: PyYAML checks the text for unprintable characters while its
    # loader is being built, before parsing starts.
    response = post(api, body, "application/yaml")

    assert response.status_code == 400
    assert "is not allowed" in response.json()["errors"][0]["message"]


# Python refuses to turn more than 4,300 digits into an int (a ValueError, not a parse error).
HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"format": "ecomap.bundle/v1", "projects": [], "n": ' + HUGE + "}", "application/json"),
        ("format: ecomap.bundle/v1\nprojects: []\nn: " + HUGE + "\n", "application/yaml"),
        ("format: ecomap.bundle/v1\nprojects: []\nn: 0x" + "f" * 20_000 + "\n", "application/yaml"),
    ],
    ids=["json", "yaml", "yaml-hex"],
)
def test_an_integer_of_thousands_of_digits_is_a_recorded_400(api, body, content_type):
    response = post(api, body, content_type)

    assert response.status_code == 400
    message = response.json()["errors"][0]["message"]
    assert "more than 4300 digits" in message
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert "more than 4300 digits" in str(job.errors)


def test_an_impossible_yaml_date_is_a_recorded_400(api):
    response = post(
        api, "format: ecomap.bundle/v1\nprojects: []\nwhen: 2026-02-30\n", "application/yaml"
    )

    assert response.status_code == 400
    assert ImportJob.objects.get().status == ImportJob.Status.FAILED
