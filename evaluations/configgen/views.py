"""The Configuration page of a decision: the generated files to read, copy and download, or the
reason there are none. Team members only (others 404, through the access helper)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from evaluations.configgen.install import node_variables
from evaluations.configgen.selectors import (
    ConfigUnavailable,
    config_archive_name,
    evaluation_config,
)
from evaluations.pages import evaluation_for, page_context


@login_required
@require_GET
def evaluation_configuration_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    decision = getattr(evaluation, "decision", None)
    files, reason, findings = [], "", []
    try:
        files = evaluation_config(evaluation)
    except ConfigUnavailable as exc:  # the API's 409: shown as the page's message
        reason = exc.reason  # an engine sentence: the template says it in the reader's language
        findings = exc.findings  # what the generated files would not get past, first
    archive = reverse("evaluations-api:evaluation-config-archive", args=[evaluation.pk])
    return render(
        request,
        "configgen/configuration.html",
        page_context(
            request,
            evaluation,
            "decision",
            decision=decision,
            files=files,
            reason=reason,
            findings=findings,
            archive_url=archive,
            archive_name=f"{config_archive_name(evaluation)}.tar.gz",
            archive_absolute=request.build_absolute_uri(archive),
            archive_top=config_archive_name(evaluation),
            node_variables=node_variables(files),
        ),
    )
