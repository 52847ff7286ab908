"""The fast check (jsonschema-rs) and the explaining validator (jsonschema) must agree.

Imports trust the fast verdict for valid bundles and ask the Python validator only to explain
invalid ones; these cases hold every rule of the schema against both.
"""

from __future__ import annotations

import copy

import jsonschema
import pytest

from catalog.engine.bundle import (
    Vocabulary,
    _fast_check,
    _validator,
    normalize_bundle,
    validate_bundle,
)
from tests.factories import bundle, placement, project

VOCABULARY = Vocabulary(
    layers=("data_plane", "control_plane", "platform"),
    resource_units=("whole_gpu", "mig_slice"),
    enforcement_points=("driver_hardware", "scheduler", "platform"),
)


def valid() -> dict:
    return bundle(
        project(
            "hami",
            placement(
                "device-plugin",
                provides=["resource:nvidia.com/gpu"],
                signals=["signal:dcgm/DCGM_FI_DEV_GPU_UTIL"],
                evidence=["https://example.org/a", {"url": "https://example.org/b"}],
                isolation={"memory": "hard", "compute": "soft"},
                costs={"performance": {"level": "low", "note": "ok"}},
                reviewed="2026-01-31",
            ),
            homepage="https://example.org",
        )
    )


def _row(document: dict) -> dict:
    return document["projects"][0]["placements"][0]


MUTATIONS = {
    "unknown layer": lambda d: _row(d).update(layer="gpu_plane"),
    "unknown unit": lambda d: _row(d).update(resource_units=["half_gpu"]),
    "no unit": lambda d: _row(d).update(resource_units=[]),
    "unknown point": lambda d: _row(d).update(enforcement_points=["kernel"]),
    "missing promise": lambda d: _row(d).pop("promise"),
    "empty promise": lambda d: _row(d).update(promise=""),
    "bad key": lambda d: _row(d).update(key="Device Plugin"),
    "bad interface kind": lambda d: _row(d).update(provides=["gpu:nvidia.com/gpu"]),
    "interface with a space": lambda d: _row(d).update(signals=["signal:dcgm util"]),
    "evidence not a URL": lambda d: _row(d).update(evidence=["see the docs"]),
    "evidence object without url": lambda d: _row(d).update(evidence=[{"claim": "docs"}]),
    "evidence object with extra key": lambda d: _row(d).update(
        evidence=[{"url": "https://example.org", "note": "x"}]
    ),
    "evidence number": lambda d: _row(d).update(evidence=[3]),
    "unknown isolation level": lambda d: _row(d).update(isolation={"memory": "strong"}),
    "unknown isolation aspect": lambda d: _row(d).update(isolation={"network": "hard"}),
    "cost without level": lambda d: _row(d).update(costs={"performance": {"note": "x"}}),
    "unknown cost aspect": lambda d: _row(d).update(costs={"speed": {"level": "low"}}),
    "reviewed not a date": lambda d: _row(d).update(reviewed="31/01/2026"),
    "extra placement field": lambda d: _row(d).update(owner="me"),
    "extra project field": lambda d: d["projects"][0].update(stars=5),
    "bad slug": lambda d: d["projects"][0].update(slug="HAMi!"),
    "empty tag": lambda d: d["projects"][0].update(tags=[""]),
    "homepage not a URL": lambda d: d["projects"][0].update(homepage="example.org"),
    "placements not a list": lambda d: d["projects"][0].update(placements={"a": 1}),
    "wrong format": lambda d: d.update(format="ecomap.bundle/v2"),
    "projects missing": lambda d: d.pop("projects"),
}


def _fast_verdict(document: dict) -> bool:
    return _fast_check(VOCABULARY).is_valid(document)


def test_a_valid_bundle_passes_both_validators():
    document = valid()

    assert _fast_verdict(document)
    assert _validator(VOCABULARY).is_valid(document)
    assert validate_bundle(document, VOCABULARY) == []


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_broken_rule_is_caught_by_both_validators(name):
    document = copy.deepcopy(valid())
    MUTATIONS[name](document)

    explained = list(_validator(VOCABULARY).iter_errors(document))

    assert explained, f"the schema should reject: {name}"
    assert not _fast_verdict(document), f"the compiled check let through: {name}"
    assert validate_bundle(document, VOCABULARY), name


def test_the_explaining_validator_reads_the_schema_as_published():
    # The fast check is compiled from a rewritten copy; the published schema stays as it was.
    schema = _validator(VOCABULARY).schema
    assert "$defs" in schema
    jsonschema.validators.validator_for(schema).check_schema(schema)


def test_normalising_orders_units_and_points_by_the_vocabulary():
    document = valid()
    _row(document).update(
        resource_units=["mig_slice", "whole_gpu", "mig_slice"],
        enforcement_points=["platform", "driver_hardware"],
    )

    (normal,) = normalize_bundle(document, VOCABULARY)

    row = normal["placements"][0]
    assert row["resource_units"] == ["whole_gpu", "mig_slice"]
    assert row["enforcement_points"] == ["driver_hardware", "platform"]


@pytest.mark.parametrize("url", ["https://\u00cfnvalid.example", "http://a b.example/docs"])
def test_an_evidence_url_that_is_no_uri_is_named_with_its_path(url):
    document = valid()
    _row(document)["evidence"] = [{"url": "https://example.org/ok"}, {"url": url, "claim": "x"}]

    errors = validate_bundle(document, VOCABULARY)

    assert [error.path for error in errors] == ["projects[0].placements[0].evidence[1]"]
    assert "not a valid URL" in errors[0].message


def test_a_yaml_date_is_named_not_a_crash():
    import datetime

    document = valid()
    _row(document)["reviewed"] = datetime.date(2026, 1, 31)  # `reviewed: 2026-01-31` unquoted

    errors = validate_bundle(document, VOCABULARY)

    assert [error.path for error in errors] == ["projects[0].placements[0].reviewed"]
