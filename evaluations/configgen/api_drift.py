"""Drift: generated objects whose API version the release running in the cluster does not serve
(Kueue v1beta2 objects against an installed Kueue 0.10.1, which serves v1beta1 only: Kueue's
CRDs list v1beta2 from v0.15.0, the catalog row's `contract_versions`). Plain Python: the files,
the releases found in the snapshot and the catalog's contract spans in, warnings out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from catalog.engine.cluster.report import WARNING
from catalog.engine.text import _
from catalog.engine.versions import in_span, span_words
from evaluations.configgen.model import Drift, GeneratedFile

# identifier `crd:<group>/<version>/<Kind>` -> (project, its since/until span)
Spans = Mapping[str, tuple[str, Mapping[str, str]]]


def contract_spans(rows: Sequence) -> dict[str, tuple[str, Mapping[str, str]]]:
    """The catalog rows' contract spans by identifier, with the project that serves each."""
    return {
        ident: (row.project, span)
        for row in rows
        for ident, span in (row.contract_versions or {}).items()
        if ident.startswith("crd:")
    }


def api_version_drift(
    files: Sequence[GeneratedFile], *, installed: Mapping[str, str], spans: Spans
) -> list[Drift]:
    """One warning per generated file and API version the installed release does not serve;
    releases the snapshot does not show (no Helm release, no tagged image) are not guessed."""
    found: list[Drift] = []
    for file in files:
        said: set[str] = set()
        for document in file.documents:
            data = document.data if isinstance(document.data, Mapping) else {}
            api, kind = data.get("apiVersion"), data.get("kind")
            ident = f"crd:{api}/{kind}"
            if not api or not kind or ident not in spans or ident in said:
                continue
            project, span = spans[ident]
            version = installed.get(project, "")
            if not version or in_span(span, version):
                continue
            said.add(ident)
            found.append(
                Drift(
                    file.path,
                    _(
                        "%(kind)s %(api)s is not served by the installed %(project)s %(version)s "
                        "(it exists %(span)s): applying this file fails. Set %(project)s's "
                        "installed version in step 1 to %(version)s and generate again, or "
                        "upgrade %(project)s first.",
                        kind=kind,
                        api=api,
                        project=project,
                        version=version,
                        span=span_words(span),
                    ),
                    WARNING,
                )
            )
    return found
