"""The reviewer's form: a verdict with a comment and comments per step."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.models import Step
from evaluations.review.choices import Verdict


class ReviewForm(forms.Form):
    verdict = forms.ChoiceField(
        label=_("Verdict"), choices=Verdict.choices, widget=forms.RadioSelect
    )
    comment = forms.CharField(
        label=_("Comment"), required=False, max_length=10000, widget=forms.Textarea({"rows": 3})
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for step in Step:
            self.fields[f"comment_{step.value}"] = forms.CharField(
                label=step.label,
                required=False,
                max_length=10000,
                widget=forms.Textarea({"rows": 2}),
            )

    def step_fields(self):
        return [self[f"comment_{step.value}"] for step in Step]

    def overridden_comments(self) -> list[int]:
        """The open comments the approver ticked "approve despite this comment" for."""
        values = self.data.getlist("override_comments") if hasattr(self.data, "getlist") else []
        return [int(value) for value in values if value.isdigit() and len(value) < 10]

    def step_comments(self) -> dict[str, str]:
        return {step.value: self.cleaned_data.get(f"comment_{step.value}") or "" for step in Step}
