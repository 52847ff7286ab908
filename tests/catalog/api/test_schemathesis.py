"""Schemathesis against the app as production serves it: every API operation, a fixed number
of examples each, sent to gunicorn under `ecomap.settings.production` (tests/production_server.py:
DEBUG off, throttles on, the broker and cache on Redis, no worker, so requested jobs stay queued)
over the test database, as an API client signed in with a token.

The run is deterministic: a fixed seed, a fixed number of examples per operation, no example
database and no time budget (with `--max-time` fuzzing repeats until the time is spent, so a
faster or slower machine generated other cases and CI could turn red on an unchanged commit).

Asserts no server error and no response (status, content type, headers, body) outside the
published OpenAPI schema, with every schemathesis check on. One rule is relaxed, and only for the
catalog's three write operations and the evaluation writes: "schema-valid data must be accepted".
Their bodies are documented with the bundle's JSON Schema, but the API also enforces what OpenAPI
cannot say: slugs and row keys unique across array items, a PUT body's slug equal to the URL's,
an uploaded file that is UTF-8 text, no NUL characters, catalog rows and units that exist, the
review state machine. Such a body is schema-valid and rightly answered 400.

The fuzzing user is an editor of a team, and evaluations are created in it; the stateful phase
follows the schema's links (evaluations.api.schema) from a created or read evaluation to its
saves with its `id` and `revision` (issue 28 L8: a save without its revision answers 428), and
the test checks that saves were accepted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from ecomap.tokens import token_create_for
from evaluations.services import evaluation_create
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.factories import make_user
from tests.production_server import ProductionServer

# reset_sequences: the ids the stateful phase follows (evaluation 100, report 13, ...) start from
# 1 whatever ran before, so which operations the run reaches does not depend on the suite's order
# (a CI run once reached POST /evaluations/100/reports/ and another did not).
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, reset_sequences=True)]

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "20"))
# The coverage phase derives thousands of boundary cases regardless of the examples asked for
# (5,973 cases, 13 minutes on this machine); examples, fuzzing and the stateful phase keep the
# run bounded by MAX_EXAMPLES per operation. SCHEMATHESIS_PHASES=examples,coverage,fuzzing,stateful
# runs everything, for a release.
PHASES = os.environ.get("SCHEMATHESIS_PHASES", "examples,fuzzing,stateful")
# A safety net against a hung server, not a budget the run spends.
TIMEOUT_S = int(os.environ.get("SCHEMATHESIS_TIMEOUT", "900"))
SEED = os.environ.get("SCHEMATHESIS_SEED", "20260101")

TEAM = "fuzz-team"  # the fuzzing user's team, named in CONFIG
CONFIG = """
[[operations]]
include-path-regex = "^/api/v1/(projects/|projects/\\\\{slug\\\\}/|imports/)$"
include-method-regex = "^(POST|PUT)$"
checks.positive_data_acceptance.expected-statuses = [
  "2xx", "400", "401", "403", "404", "409", "429",
]

# Evaluations are created in the fuzzing user's team, so the stateful phase follows the
# schema's links from the new evaluation (its `id` and `revision`, issue 28 L8) to the saves.
# The evaluation writes, like the catalog's, enforce what OpenAPI cannot say: rows and units
# that exist in the catalog, the review state machine (no edit in review, submit a complete
# draft), a title that is not blank. A schema-valid body may rightly be answered 400.
[[operations]]
include-path = "/api/v1/evaluations/"
include-method = "POST"
parameters = { "body.team" = "fuzz-team" }
checks.positive_data_acceptance.expected-statuses = [
  "2xx", "400", "401", "403", "404", "409", "429",
]

# The content saves of one draft of the team, at its revision: whichever links the stateful
# phase happens to follow with this seed, the saves reach a real evaluation (the first accepted
# save moves the revision on, so later ones are rightly 409).
[[operations]]
include-path-regex = "^/api/v1/evaluations/\\\\{id\\\\}/(steps/[a-z]+|decision)/$"
include-method = "PUT"
parameters = { "path.id" = %(draft)d, "body.revision" = %(revision)d }
checks.positive_data_acceptance.expected-statuses = [
  "2xx", "400", "401", "403", "404", "409", "429",
]

[[operations]]
include-path-regex = "^/api/v1/evaluations/.+"
include-method-regex = "^(POST|PUT)$"
checks.positive_data_acceptance.expected-statuses = [
  "2xx", "400", "401", "403", "404", "409", "429",
]
"""


def test_the_api_keeps_to_its_schema(tmp_path):
    call_command("load_catalog", verbosity=0)
    user = make_user("schemathesis", maintainer=True)
    # An editor of the team, as an API client that writes evaluations is: an admin's archive
    # (a valid request the fuzzer sends early) would leave every later save a refused edit.
    team = team_create(name="Fuzz", slug=TEAM, admin=make_user("fuzz-admin"))
    membership_set(team=team, user=user, role=Role.EDITOR)
    token = token_create_for(user=user)
    draft = evaluation_create(actor=user, team=team, title="Fuzzed draft")
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG % {"draft": draft.pk, "revision": draft.revision})

    server = ProductionServer(tmp_path / "gunicorn.log", media_root=tmp_path / "media")
    with server:
        result = _schemathesis(server.url, token.key, config, tmp_path)
    log = (tmp_path / "gunicorn.log").read_text()

    output = result.stdout + result.stderr
    generated = re.search(r"(\d+) generated", output)
    print(f"schemathesis: {generated.group(1) if generated else '?'} generated test cases")
    # The failures section, whole: each failure names its operation in its heading.
    report = output[output.find("FAILURES") :] if "FAILURES" in output else output[-6000:]
    print(report[:30000])
    assert generated, output[-3000:]
    assert "Server error" not in output
    assert "Traceback" not in log, log[-6000:]
    assert result.returncode == 0, report[:30000]
    # The saves reached the team's real evaluations, most with the revision a link carried.
    reached = _saves_of(tmp_path / "run.har", set(team.evaluations.values_list("pk", flat=True)))
    print(f"schemathesis: saves of real evaluations by status {dict(sorted(reached.items()))}")
    assert sum(reached.values()) > 0
    assert reached.get(200, 0) > 0, reached


def _schemathesis(url: str, token: str, config: Path, tmp_path: Path):
    return subprocess.run(  # noqa: S603 (our own venv's schemathesis, fixed arguments)
        [
            str(SCHEMATHESIS),
            "--config-file",
            str(config),
            "run",
            f"{url}/api/schema/",
            "--header",
            f"Authorization: Token {token}",
            "--checks",
            "all",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--generation-database",
            "none",
            "--phases",
            PHASES,
            "--seed",
            SEED,
            "--no-shrink",
            "--workers",
            "1",
            "--report",
            "har",
            "--report-har-path",
            str(tmp_path / "run.har"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=TIMEOUT_S,
        check=False,
    )


SAVE = re.compile(r"/api/v1/evaluations/(\d+)/(?:steps/\w+|decision)/$")


def _saves_of(har: Path, evaluations: set[int]) -> Counter:
    """Status counts of the content saves (PUT) of `evaluations` that sent a revision."""
    statuses: Counter = Counter()
    for entry in json.loads(har.read_text())["log"]["entries"]:
        request = entry["request"]
        match = SAVE.search(urlsplit(request["url"]).path)
        if request["method"] != "PUT" or not match or int(match.group(1)) not in evaluations:
            continue
        try:
            body = json.loads((request.get("postData") or {}).get("text") or "null")
        except ValueError:
            continue
        if isinstance(body, dict) and isinstance(body.get("revision"), int):
            statuses[entry["response"]["status"]] += 1
    return statuses
