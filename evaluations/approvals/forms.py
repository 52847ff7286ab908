"""The approval policy form of a team's page: the count and up to five rules."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.approvals.services import MAX_RULES, RuleInput
from evaluations.teams.choices import Role


class ApprovalPolicyForm(forms.Form):
    required_approvals = forms.IntegerField(
        label=_("Approvals required"),
        min_value=1,
        max_value=10,
        help_text=_("Distinct reviewers who approve the same revision."),
    )


class ApprovalRuleForm(forms.Form):
    name = forms.CharField(
        label=_("Rule"),
        max_length=60,
        required=False,
        help_text=_("e.g. “security”; leave empty to drop the rule"),
    )
    min_approvals = forms.IntegerField(
        label=_("Approvals needed"), min_value=1, max_value=10, initial=1, required=False
    )
    role = forms.ChoiceField(
        label=_("From anyone with the role"),
        required=False,
        choices=[("", "—"), (Role.REVIEWER, _("reviewer")), (Role.ADMIN, _("admin"))],
    )
    reviewers = forms.MultipleChoiceField(label=_("Or from these reviewers"), required=False,
                                          widget=forms.CheckboxSelectMultiple)  # fmt: skip

    def __init__(self, *args, reviewer_names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reviewers"].choices = [(name, name) for name in reviewer_names]

    def to_input(self) -> RuleInput | None:
        data = self.cleaned_data
        if not data.get("name"):
            return None
        return RuleInput(
            name=data["name"],
            min_approvals=data.get("min_approvals") or 1,
            role=data.get("role") or "",
            reviewers=list(data.get("reviewers") or []),
        )


ApprovalRuleFormSet = forms.formset_factory(
    ApprovalRuleForm, extra=1, max_num=MAX_RULES, validate_max=True
)
