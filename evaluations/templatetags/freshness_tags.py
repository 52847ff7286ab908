"""`{% decision_freshness evaluation as rows %}` and `{% stale_evidence evaluation as rows %}`:
when each decided row was last verified, on the decision page and in the report."""

from __future__ import annotations

from django import template

from evaluations.reports import freshness

register = template.Library()


# Tags rather than view context, so the block drops into the decision page and the report alike.
@register.simple_tag
def decision_freshness(evaluation):
    return freshness.decision_freshness(evaluation)


@register.simple_tag
def stale_evidence(evaluation):
    return freshness.stale_evidence(evaluation)
