"""The house rules of docs/architecture.md, checked on the source: no import circles, modules of a
readable size, layering (evaluations -> catalog -> ecomap) and engines free of Django."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("catalog", "evaluations", "ecomap")
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {
        _module_name(path): path
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    }


SOURCES = _sources()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:`: names for annotations, not run."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return hidden


def _imports(path: Path, *, at_run_time: bool = False) -> set[str]:
    """First-party modules `path` imports, at module level or inside functions (with
    `at_run_time`, leaving out those imported only for type checking)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    hidden = _type_checking_only(tree) if at_run_time else set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod.
            names = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in SOURCES
                else node.module
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name in SOURCES)
    return found


GRAPH = {name: _imports(path) - {name} for name, path in SOURCES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back_through_others():
    assert _cycles(GRAPH) == []


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_modules_stay_readable_in_size(name):
    lines = SOURCES[name].read_text().count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines; split it by subdomain"


def test_the_catalog_never_imports_evaluations():
    offenders = {
        name: sorted(target for target in targets if target.startswith("evaluations"))
        for name, targets in GRAPH.items()
        if name.startswith(("catalog", "ecomap"))
    }
    assert {name: targets for name, targets in offenders.items() if targets} == {}


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if ".engine" in n))
def test_engines_import_no_django_and_no_django_code(name):
    tree = ast.parse(SOURCES[name].read_text())
    nodes = list(ast.walk(tree))
    imported = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m for m in imported if m.split(".")[0] == "django"}
    assert not {
        m for m in GRAPH[name] if ".engine" not in m and m not in ("catalog", "evaluations")
    }


# What an app's root may hold besides its rooms: the modules Django looks for by name, plus at
# most a dozen of its own (issue 25). A new feature gets a room, not a file beside services.py.
ROOT_FIXTURES = {"__init__", "apps", "admin", "models", "urls"}
ROOT_MODULES_MAX = 12
# Packages that are Django's plumbing or the app's API, not rooms a reader looks for in tests.
NOT_ROOMS = {"api", "management", "migrations", "templatetags"}


@pytest.mark.parametrize("app", ["catalog", "evaluations"])
def test_an_apps_root_fits_on_one_screen(app):
    modules = sorted(
        path.stem for path in (ROOT / app).glob("*.py") if path.stem not in ROOT_FIXTURES
    )
    assert len(modules) <= ROOT_MODULES_MAX, f"{app}/ has {len(modules)} modules: {modules}"


@pytest.mark.parametrize("app", ["catalog", "evaluations"])
def test_each_room_has_its_tests_under_the_same_name(app):
    rooms = {
        path.parent.name
        for path in (ROOT / app).glob("*/__init__.py")
        if path.parent.name not in NOT_ROOMS
    }
    missing = sorted(room for room in rooms if not (ROOT / "tests" / app / room).is_dir())
    assert missing == [], f"rooms of {app}/ without tests/{app}/<room>/: {missing}"


def test_no_two_modules_of_an_app_share_a_name_that_is_not_a_rooms_standard_part():
    """One `whatif`: a name that is not one of the rooms' standard parts (models, services,
    views…) means one thing in an app, so it lives in one place."""
    standard = {"__init__", "models", "services", "selectors", "views", "urls", "forms", "api"}
    standard |= {"tasks", "admin", "apps", "engine", "schema", "serializers", "permissions"}
    standard |= {"figure"}  # a room's Plotly figure (the map's, the matrix's)
    standard |= {"choices"}  # a room's vocabulary (its TextChoices), named by other rooms
    for app in ("catalog", "evaluations"):
        seen: dict[str, list[str]] = {}
        for name in SOURCES:
            if name.startswith(app + ".") and ".management." not in name:
                seen.setdefault(name.rsplit(".", 1)[-1], []).append(name)
        doubled = {
            stem: names for stem, names in seen.items() if len(names) > 1 and stem not in standard
        }
        assert doubled == {}, f"{app}: the same module name in several rooms: {doubled}"


# Issue 44: the evaluations rooms with tables are apps. Another room names a room's vocabulary
# through its `choices` and reads or writes its tables through its selectors and services (and,
# for Django's plumbing, its admin inlines and API serializers), never through its models.
# Imports under `if TYPE_CHECKING:` name a type for annotations and are not run; they are left
# out, as import-linter's `exclude_type_checking_imports` does.
ROOM_APPS = ("teams", "notifications", "review", "decisions", "audit", "approvals", "reports")
ROOM_APPS += ("sharing", "simulations", "clusters")
RUN_TIME_GRAPH = {name: _imports(path, at_run_time=True) for name, path in SOURCES.items()}


def _room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if parts[0] == "evaluations" and len(parts) > 1 else ""


def test_a_rooms_models_are_imported_by_no_other_room():
    found = {
        module: sorted(room for room in ROOM_APPS if f"evaluations.{room}.models" in imported)
        for module, imported in RUN_TIME_GRAPH.items()
    }
    crossing = {
        module: rooms
        for module, rooms in found.items()
        if [room for room in rooms if _room_of(module) != room]
    }
    assert crossing == {}, "read and write another room's tables through its selectors/services"


def test_the_room_rule_sees_imports_run_and_leaves_out_annotations_only(tmp_path):
    """The import reader on a module written to break the rule, so a rule that found nothing
    is not mistaken for a house in order."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "from evaluations.review.models import Review\n"
        "if TYPE_CHECKING:\n"
        "    from evaluations.teams.models import Team\n"
        "def later():\n"
        "    from evaluations.audit.models import AuditEntry\n"
    )
    assert _imports(probe, at_run_time=True) == {
        "evaluations.review.models",
        "evaluations.audit.models",
    }
    assert "evaluations.teams.models" in _imports(probe)


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n.endswith(".choices")))
def test_a_rooms_choices_are_words_only(name):
    """What other rooms may import of a room without its selectors: enums, no tables."""
    assert not {m for m in GRAPH[name] if m.startswith(("evaluations", "catalog"))}
