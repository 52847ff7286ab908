"""Evaluation forms: they shape input into the dicts the services take; the rules live there."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.teams.models import Team


class EvaluationCreateForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=200)
    team = forms.ModelChoiceField(label=_("Team"), queryset=Team.objects.none(), empty_label=None)

    def __init__(self, *args: Any, teams: list[Team], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["team"].queryset = Team.objects.filter(pk__in=[team.pk for team in teams])
