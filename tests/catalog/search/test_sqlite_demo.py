"""The SQLite demo (no PostgreSQL): search falls back to matching the words themselves, through
the same pages. Run in a process of its own on a fresh SQLite file, as `make demo` runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.slow

SCRIPT = """
import json, yaml
from pathlib import Path
from catalog.services import bundle_apply
from catalog.search.selectors import catalog_search
from django.test import Client
from tests.factories import make_user
for slug in ("volcano", "kueue", "hami"):
    bundle_apply(document=yaml.safe_load(Path(f"catalog/data/{slug}.yaml").read_text()))
client = Client()
client.force_login(make_user("demo-reader"))
page = client.get("/inbox/search/", {"q": "gang"})
listed = client.get("/catalog/", {"q": "成组调度"}).content.decode()
print(json.dumps({
    "gang": [hit.project.slug for hit in catalog_search(text="gang").projects],
    "status": page.status_code,
    "marked": "<mark>" in page.content.decode(),
    "chinese": [s for s in ("volcano", "kueue", "hami") if f"/catalog/projects/{s}/" in listed],
}))
"""


def test_the_demo_on_sqlite_finds_words_in_both_languages(tmp_path):
    root = Path(settings.BASE_DIR)
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "ecomap.settings.local",
        "ALLOWED_HOSTS": "testserver",
        "BROKER_URL": "",
        "LOG_LEVEL": "WARNING",
    }
    run = [sys.executable, "manage.py"]
    # Our own manage.py with fixed arguments.
    subprocess.run([*run, "migrate", "-v0"], cwd=root, env=env, check=True, timeout=300)  # noqa: S603
    out = subprocess.run(  # noqa: S603
        [*run, "shell", "-c", SCRIPT], cwd=root, env=env, check=True, timeout=300,
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    found = json.loads(out.strip().splitlines()[-1])

    assert {"volcano", "kueue"} <= set(found["gang"])
    assert found["status"] == 200 and found["marked"]
    assert {"volcano", "kueue"} <= set(found["chinese"])
