"""Evaluation forms: they shape input into the dicts the services take; the rules live there."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.teams.selectors import no_teams, teams_by_pk

if TYPE_CHECKING:
    from evaluations.teams.models import Team


class EvaluationCreateForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=200)
    team = forms.ModelChoiceField(label=_("Team"), queryset=no_teams(), empty_label=None)

    def __init__(self, *args: Any, teams: list[Team], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["team"].queryset = teams_by_pk(team.pk for team in teams)
