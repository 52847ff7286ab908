"""`{% report_panel_for evaluation as panel %}`: the report panel's data on any evaluation page."""

from __future__ import annotations

from django import template

from evaluations.reports.services import report_panel

register = template.Library()


# A tag rather than view context, so the panel drops into the evaluation page with one include.
@register.simple_tag(takes_context=True)
def report_panel_for(context, evaluation):
    return report_panel(evaluation=evaluation, user=context["request"].user)
