"""Bad input never answers 500: every form and query parameter of the pages is fuzzed with NUL,
overlong and odd values (on PostgreSQL, which rejects NUL in text), and oversized bodies are
refused before any view reads them."""

from __future__ import annotations

import time
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from ecomap.parsers import MAX_DEPTH, nested_deeper_than
from evaluations import services
from evaluations.models import Evaluation, Step
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BAD_VALUES = ("\x00", "x" * 3000, "-1'\"<b>]}%")
# Query parameters the views read that no form on the pages offers.
QUERY_PARAMETERS = {
    "/catalog/": ("q", "layer", "unit", "enforcement_point", "tag", "unplaced", "page"),
    "/map/data/": ("q", "unit", "point", "tag", "with", "stack", "layer"),
    "/map/embed/": ("q", "stack", "with"),
    "/matrix/": ("layer", "project", "verdict"),
    "/matrix/pair/": ("a", "b"),
    "/catalog/imports/": ("page",),
    "/catalog/unplaced/": ("q", "page"),
    "/evaluations/": ("state",),
}
START_PAGES = (
    "/catalog/",
    "/catalog/projects/hami/",
    "/catalog/coverage/",
    "/catalog/imports/",
    "/catalog/unplaced/",
    "/map/",
    "/matrix/",
    "/matrix/express/",
    "/evaluations/",
    "/account/token/",
)


class _Forms(HTMLParser):
    """The forms of a page: action, method and each field's name and first value."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append(
                {
                    "action": attrs.get("action") or "",
                    "method": (attrs.get("method") or "get").lower(),
                    "fields": {},
                }
            )
        elif tag in ("input", "select", "textarea") and self.forms and attrs.get("name"):
            if attrs.get("type") in ("submit", "button", "file"):
                return
            self.forms[-1]["fields"].setdefault(attrs["name"], attrs.get("value") or "")


def forms_of(client: Client, path: str) -> list[dict]:
    parser = _Forms()
    parser.feed(client.get(path).content.decode())
    for form in parser.forms:
        form["url"] = urlsplit(urljoin(f"http://testserver{path}", form["action"])).path
    return parser.forms


@pytest.fixture
def site(bob):
    call_command("load_catalog", verbosity=0)
    team = team_create(name="Fuzz", slug="fuzz", admin=bob)
    membership_set(team=team, user=bob, role=Role.ADMIN)
    evaluation = services.evaluation_create(actor=bob, team=team, title="Fuzzed")
    evaluation_step_save(
        evaluation=evaluation,
        actor=bob,
        step=Step.CANDIDATES,
        data={"candidates": [{"row": "hami/device-plugin"}, {"row": "kueue/controller"}]},
    )
    client = Client()
    client.force_login(bob)
    pages = [*START_PAGES, f"/evaluations/{evaluation.pk}/"]
    pages += [f"/evaluations/{evaluation.pk}/steps/{n}/" for n in (1, 2, 3, 4)]
    pages += [f"/evaluations/{evaluation.pk}/{name}/" for name in ("comparison", "decision")]
    return client, pages


def test_every_form_field_and_query_parameter_survives_bad_values(site):
    client, pages = site
    failures, sent = [], 0
    for page in pages:
        for form in forms_of(client, page):
            if form["url"].startswith("/accounts/logout") or form["url"] == "/i18n/setlang/":
                continue
            for name in form["fields"]:
                for bad in BAD_VALUES:
                    data = {**form["fields"], name: bad}
                    send = client.post if form["method"] == "post" else client.get
                    response = send(form["url"], data)
                    sent += 1
                    if response.status_code >= 500:
                        failures.append((form["url"], form["method"], name, bad[:20]))
    for path, names in QUERY_PARAMETERS.items():
        for name in names:
            for bad in BAD_VALUES:
                response = client.get(path, {name: bad})
                sent += 1
                if response.status_code >= 500:
                    failures.append((path, "get", name, bad[:20]))
    assert sent > 250  # 3 bad values for each field of each form of 17 pages, and each query
    assert failures == []


@pytest.mark.parametrize(
    "path",
    ["/catalog/?q=%00", "/map/data/?stack=%00", "/matrix/pair/?a=%00&b=x",
     "/evaluations/?state=%00", "/api/v1/export/?project=%00", "/api/v1/projects/%00/",
     "/api/v1/interfaces/%00x/"],
)  # fmt: skip
def test_nul_in_a_path_or_query_is_a_400(site, path):
    client, _pages = site

    response = client.get(path)

    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_nul_in_a_json_body_is_a_400_in_the_api_shape(site):
    client, _pages = site

    response = client.post(
        "/api/v1/evaluations/", '{"title": "a\\u0000b"}', content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["message"].startswith("NUL characters")


def test_an_oversized_form_body_is_a_413_but_an_import_may_be_large(site):
    client, _pages = site
    big = "x" * (1024 * 1024 + 1)

    page = client.post("/evaluations/new/", {"title": big})
    api = client.post("/api/v1/evaluations/", {"title": big}, content_type="application/json")
    imports = client.generic(
        "POST", "/api/v1/imports/", '{"format": "x", "pad": "' + big + '"}',
        content_type="application/json",
    )  # fmt: skip

    assert page.status_code == 413
    assert api.status_code == 413
    assert imports.status_code != 413  # refused for what it says, not for its size


def test_decision_pools_are_bounded(site, bob):
    client, _pages = site
    evaluation = Evaluation.objects.get(title="Fuzzed")
    pools = {f"pool-{i}": ["hami/device-plugin"] for i in range(21)}

    response = client.put(
        f"/api/v1/evaluations/{evaluation.pk}/decision/",
        {"rows": ["hami/device-plugin"], "pools": pools, "revision": evaluation.revision},
        content_type="application/json",
    )

    assert response.status_code == 400
    assert "At most 20 node pools" in str(response.json())


# Issue 28, M2: bodies the JSON parser chokes on answer 400 in the API's one error shape.
DEEP = "[" * 1000 + "]" * 1000


def _json_write_operations(client) -> list[tuple[str, str]]:
    """Every POST/PUT/PATCH of the API that takes a JSON body (the schema says which), except
    imports and cluster uploads, which read their bodies themselves (tested with them)."""
    schema = client.get("/api/schema/", {"format": "json"}).json()
    return [
        (method, path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in ("post", "put", "patch")
        and "application/json" in operation.get("requestBody", {}).get("content", {})
        and not path.startswith(("/api/v1/imports/", "/api/v1/clusters/"))
    ]


def _refused_in_the_api_shape(response, words: str) -> None:
    assert response.status_code == 400, response.content
    data = response.json()
    assert set(data) == {"detail", "errors"}
    assert data["errors"][0]["path"] == "$"
    assert words in data["errors"][0]["message"]


def test_a_thousand_deep_json_body_is_a_400_on_every_endpoint(site, bob):
    client, _pages = site
    bob.user_permissions.add(*Permission.objects.filter(codename="maintain_catalog"))
    evaluation = Evaluation.objects.get(title="Fuzzed")
    operations = _json_write_operations(client)
    assert len(operations) >= 9
    for method, path in operations:
        url = path.replace("{id}", str(evaluation.pk)).replace(
            "{evaluation_pk}", str(evaluation.pk)
        )
        url = url.replace("{slug}", "hami")
        for body in (DEEP, '{"title": ' + "[" * 40 + "]" * 40 + "}"):
            response = client.generic(method.upper(), url, body, content_type="application/json")
            _refused_in_the_api_shape(response, "nested deeper than 32")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('{"title": ' + "9" * 5000 + "}", "more than 4300 digits"),
        ('{"title": 1e999}', "too large"),
        ('{"title": "x"', "not valid JSON"),
    ],
    ids=["huge-integer", "infinite-number", "truncated"],
)
def test_a_json_body_the_parser_refuses_is_a_400_in_the_api_shape(site, body, words):
    client, _pages = site

    response = client.post("/api/v1/evaluations/", body, content_type="application/json")

    _refused_in_the_api_shape(response, words)
    assert not Evaluation.objects.exclude(title="Fuzzed").exists()


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/", "/api/schema/"])
def test_anonymous_options_on_the_api_docs_is_not_a_server_error(path):
    response = Client().options(path)

    assert response.status_code < 500


@pytest.mark.parametrize(
    "text",
    ["[" * 40 + '"' + '\\"' * 500_000, "[" * 40 + '"' + "\\" * 1_000_000, "[" * 500_000],
    ids=["escaped-quotes", "backslashes", "brackets"],
)
def test_the_depth_scan_stays_linear_on_a_hostile_megabyte(text):
    started = time.perf_counter()

    assert nested_deeper_than(text, MAX_DEPTH)

    assert time.perf_counter() - started < 1


def test_the_depth_scan_ignores_brackets_inside_strings():
    inside = '{"a\\"' + "[" * 40 + '": "' + "{" * 40 + '"}'

    assert not nested_deeper_than(inside, MAX_DEPTH)
    assert nested_deeper_than("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), MAX_DEPTH)
    assert not nested_deeper_than("[" * MAX_DEPTH + "]" * MAX_DEPTH, MAX_DEPTH)
