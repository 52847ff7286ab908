"""bench/scale --huge: every page, export and job that reads the whole catalog, on a catalog of
100,000 placement rows (issue 41 H1: one GET of /map/ took 385 s and 18.6 GB there).

    .venv/bin/python bench/scale --huge               # 100,000 rows (built once, ~5 minutes)
    .venv/bin/python bench/scale --huge 30000 --only map --only map_card

The database `ecomap_scale_huge<rows>` holds bench/scalecatalog.py's rows (the built-in rows
under rows/20 project names), built in one transaction (one matrix refresh after it, refused: the
catalog has more than MATRIX_MAX_ROWS rows) and bench/report's approved evaluation. Each page is
measured in a process of its own forked after Django started: seconds of each of N requests
(the first one cold: the shared cache is emptied first), the body as sent (gzip), and the peak
RSS of that process (`peak_mb`) and its growth over the process at the fork (`grew_mb`). Each
child runs under RLIMIT_AS (the process's size at the fork + `--cap-mb`; not the report, whose
kaleido Chromium would not start under it) and an alarm (`--cap-s`), so an unbounded path is
stopped rather than take the host down.

Baselines, in the same run, where the code before issue 41 had one path to call: the map drawn
whole (`figure.map_page_data`, what /map/ drew), a project's card over every row, the export
built as one document, the coverage of every row. The last line is one key=value summary.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import statistics
import sys
import time
import traceback
from typing import Any

HUGE_ROWS = 100_000
PAGES = [
    ("map", "/map/"),
    ("map_embed", "/map/embed/"),
    ("map_data", "/map/data/"),
    ("map_table", "/map/table/"),
    ("map_csv", "/map/data.csv"),
    ("map_layer", "/map/?layer=data_plane"),
    ("map_near", "/map/?near=hami"),
    ("map_near_layer", "/map/?near=kueue&layer=control_plane"),
    ("map_card", "/map/card/hami/"),
    ("matrix", "/matrix/"),
    ("matrix_projects", "/matrix/?project=hami&project=kueue&project=volcano"),
    ("matrix_express", "/matrix/express/"),
    ("matrix_pair", "/matrix/pair/?a=hami/device-plugin&b=kueue/controller"),
    ("catalog", "/catalog/"),
    ("catalog_search", "/catalog/?q=gpu+sharing"),
    ("coverage", "/catalog/coverage/"),
    ("project", "/catalog/projects/hami/"),
    ("search", "/inbox/search/?q=gang"),
    ("api_projects", "/api/v1/projects/"),
    ("api_placements", "/api/v1/placements/"),
    ("api_interfaces", "/api/v1/interfaces/"),
    ("api_export", "/api/v1/export/"),
    ("api_export_yaml", "/api/v1/export/?as=yaml"),
    ("api_matrix", "/api/v1/matrix/?project=hami&project=kueue"),
    ("step3", "/evaluations/{e}/steps/3/"),
    ("candidate_search", "/evaluations/{e}/candidates/search/?q=gpu"),
    ("comparison", "/evaluations/{e}/comparison/"),
    ("recommendations", "/evaluations/{e}/recommendations/"),
    ("decision", "/evaluations/{e}/decision/"),
    ("what_if", "/evaluations/{e}/what-if/?row={row}"),
    ("report", "job"),
    ("recommend", "job"),
    ("check_cluster", "job"),
    ("matrix_job", "job"),
    ("map_warm", "job"),
]
# Pages whose baseline (what the code before issue 41 did for them) is measured too.
BASELINES = ["map", "map_card", "api_export", "coverage"]
# Downloads of the whole catalog take minutes at 100,000 rows: requested once.
ONCE = {"api_export", "api_export_yaml"}


def build(scale, rows: int) -> None:
    """The huge catalog, in one transaction (one matrix refresh, refused by its count)."""
    import scalecatalog
    from django.core.management import call_command
    from django.db import transaction

    from catalog.services import bundle_apply

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    placed = scalecatalog.scaled_projects(rows=rows, projects=max(40, rows // 20))
    with transaction.atomic():
        chunk: list[dict[str, Any]] = []
        count = 0
        for project in placed:
            chunk.append(project)
            count += len(project["placements"])
            if count >= 5000:
                bundle_apply(document=scalecatalog.bundle(chunk), source="bench/scale")
                chunk, count = [], 0
        if chunk:
            bundle_apply(document=scalecatalog.bundle(chunk), source="bench/scale")
    fixtures = scale._bench_report_module()
    fixtures.services_recommendation = scale._builtin_recommendation
    fixtures.evaluations(scale.CANDIDATES)
    print(f"built {rows} rows in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def _size_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Stopped(Exception):
    pass


def _page(url: str, requests: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(HTTP_ACCEPT_ENCODING="gzip")
    client.force_login(get_user_model().objects.get(username="bench-author"))
    times, size = [], 0
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        size = len(body)
    return {"times": times, "bytes": size}


def _job(name: str, scale, requests: int) -> dict[str, Any]:
    if name == "report":
        return scale.measure_report(requests)
    if name == "recommend":
        return scale.measure_recommend(requests)
    if name == "check_cluster":
        return scale.measure_cluster_check(requests)
    times = []
    for _ in range(max(1, min(requests, 3))):
        started = time.perf_counter()
        if name == "matrix_job":
            from catalog.matrix.selectors import matrix_state
            from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute

            snapshot = matrix_refresh_request() or matrix_state().computing
            if snapshot is not None:
                matrix_snapshot_compute(snapshot_id=snapshot.pk)
        else:
            from django.core.cache import cache

            from catalog.map.large import map_cache_warm

            cache.clear()
            map_cache_warm()
        times.append(time.perf_counter() - started)
    return {"times": times, "bytes": 0}


def _baseline(name: str) -> dict[str, Any]:
    """What the code before issue 41 did for the page, called directly."""
    started = time.perf_counter()
    size = 0
    if name == "map":
        from catalog.map.figure import MapFilters, map_page_data

        size = len(json.dumps(map_page_data(filters=MapFilters())["payload"], default=str))
    elif name == "map_card":
        from catalog.engine.map_focus import contracts_of_project, row_contracts
        from catalog.selectors import engine_rows

        rows = engine_rows()
        size = len(row_contracts(rows, contracts_of_project(rows, "hami")))
    elif name == "api_export":
        from catalog.selectors import bundle_export

        size = len(json.dumps(bundle_export(), ensure_ascii=False))
    elif name == "coverage":
        from catalog.coverage.selectors import catalog_coverage

        size = catalog_coverage().total_rows
    return {"times": [time.perf_counter() - started], "bytes": size}


def measure(name: str, target: str, *, scale, requests: int, baseline: bool, cap_mb: int,
            cap_s: int) -> dict[str, Any]:  # fmt: skip
    """One measurement in a forked process, capped; its result comes back through a pipe."""
    from django.db import connections

    connections.close_all()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        start = _peak_mb()
        if name != "report":  # kaleido's Chromium reserves far more address space than it uses
            limit = int((_size_mb() + cap_mb) * 2**20)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        def stop(_signum, _frame):
            raise Stopped(f"over {cap_s} s")

        signal.signal(signal.SIGALRM, stop)
        signal.alarm(cap_s)
        started = time.perf_counter()
        try:
            if baseline:
                result = _baseline(name)
            elif target == "job":
                result = _job(name, scale, requests)
            else:
                result = _page(target, requests)
        except MemoryError:
            result = {"stopped": f"over {cap_mb} MB", "after_s": time.perf_counter() - started}
        except Stopped as exc:
            result = {"stopped": str(exc), "after_s": time.perf_counter() - started}
        except Exception as exc:  # reported by the parent, never swallowed
            result = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
        signal.alarm(0)
        result.update(peak_mb=_peak_mb(), grew_mb=_peak_mb() - start)
        with os.fdopen(write_end, "w") as pipe:
            json.dump(result, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data) if data else {"error": "the measuring process died"}


def run(scale, *, rows: int, requests: int, only: list[str], rebuild: bool, cap_mb: int,
        cap_s: int, baselines: bool) -> int:  # fmt: skip
    """Build if needed (in this process, which then exits), else measure; prints the table."""
    catalog = f"huge{rows}"
    ready = scale.database_ready(catalog, rebuild=rebuild)
    scale.configure(catalog)
    import django

    django.setup()
    if not ready:
        build(scale, rows)
        scale.mark_built(catalog)
        return 3  # built: measure in a fresh process (this one holds the build's memory)
    from django.core.cache import cache

    from evaluations.models import Evaluation

    evaluation = Evaluation.objects.get(title=f"Bench: {scale.CANDIDATES} candidates")
    swapped = evaluation.decision.rows[0]
    cache.clear()
    scale._warm_up()
    results = []
    for name, target in PAGES:
        if only and name not in only:
            continue
        url = target.format(e=evaluation.pk, row=swapped)
        cache.clear()  # every first request is cold, as after a catalog change
        times = 1 if name in ONCE else requests
        ours = measure(name, url, scale=scale, requests=times, baseline=False,
                       cap_mb=cap_mb, cap_s=cap_s)  # fmt: skip
        before = None
        if baselines and name in BASELINES:
            before = measure(name, url, scale=scale, requests=1, baseline=True,
                             cap_mb=cap_mb, cap_s=cap_s)  # fmt: skip
        results.append((name, url, ours, before))
        print(_line(rows, name, url, ours, before), flush=True)
    _summary(rows, results)
    return 0 if all("times" in ours for _n, _u, ours, _b in results) else 1


def _cell(result: dict[str, Any] | None) -> str:
    if result is None:
        return "-"
    if "times" in result:
        return f"{max(result['times']):.2f}s/{result['peak_mb']:.0f}MB"
    if "stopped" in result:
        return f"stopped {result['stopped']} ({result['after_s']:.0f}s, {result['peak_mb']:.0f}MB)"
    return "error"


def _line(rows: int, name: str, url: str, ours: dict, before: dict | None) -> str:
    parts = [f"rows={rows}", f"page={name}", f"url={url}"]
    if "times" in ours:
        parts += [
            f"first_s={ours['times'][0]:.2f}",
            f"p50_s={statistics.median(ours['times']):.2f}",
            f"bytes={ours['bytes']}",
        ]
    else:
        parts.append(f"error={ours.get('error') or ours.get('stopped')!r}")
    parts += [f"peak_mb={ours['peak_mb']:.0f}", f"grew_mb={ours['grew_mb']:.0f}"]
    if before is not None:
        parts.append(f"baseline={_cell(before).replace(' ', '_')}")
    return " ".join(parts)


def _summary(rows: int, results: list) -> None:
    print(f"{'page':<18}{'first s':>9}{'p50 s':>8}{'bytes':>10}{'peak MB':>9}{'grew MB':>9}"
          "  baseline (code before issue 41)")  # fmt: skip
    for name, _url, ours, before in results:
        if "times" not in ours:
            print(f"{name:<18} {_cell(ours)}")
            continue
        print(f"{name:<18}{ours['times'][0]:>9.2f}{statistics.median(ours['times']):>8.2f}"
              f"{ours['bytes']:>10}{ours['peak_mb']:>9.0f}{ours['grew_mb']:>9.0f}"
              f"  {_cell(before)}")  # fmt: skip
    measured = [(n, u, o) for n, u, o, _b in results if "times" in o]
    pages = [(n, u, o) for n, u, o in measured if u != "job"]
    worst = max(measured, key=lambda item: max(item[2]["times"]), default=None)
    hungry = max(measured, key=lambda item: item[2]["grew_mb"], default=None)
    largest = max(pages, key=lambda item: item[2]["bytes"], default=None)
    failed = [n for n, _u, o, _b in results if "times" not in o]
    summary = [f"rows={rows}", f"pages={len(pages)}", f"jobs={len(measured) - len(pages)}"]
    if worst:
        summary += [f"worst_page={worst[1] if worst[1] != 'job' else worst[0]}",
                    f"worst_s={max(worst[2]['times']):.2f}"]  # fmt: skip
    if hungry:
        summary += [f"worst_peak_page={hungry[0]}", f"worst_peak_mb={hungry[2]['peak_mb']:.0f}",
                    f"worst_grew_mb={hungry[2]['grew_mb']:.0f}"]  # fmt: skip
    if largest:
        summary.append(f"max_bytes={largest[2]['bytes']}")
    for name, _url, _ours, before in results:
        if before is not None:
            summary.append(f"baseline_{name}={_cell(before).split(' (')[0].replace(' ', '_')}")
    summary.append(f"failed={','.join(failed) or 'none'}")
    print(" ".join(summary))
