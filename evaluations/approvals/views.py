"""Approval pages: a team's policy (members read it, admins change it) and asking a person for
a review from the evaluation's page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evaluations.approvals.forms import ApprovalPolicyForm, ApprovalRuleFormSet
from evaluations.approvals.services import (
    APPROVING_ROLES,
    approval_policy_set,
    policy_rules,
    review_request_create,
)
from evaluations.errors import EvaluationError
from evaluations.pages import evaluation_for, maps_domain_errors
from evaluations.selectors import role_allows
from evaluations.teams.choices import Role
from evaluations.teams.selectors import team_get_for_user, usernames_with_role


def _reviewer_names(team) -> list[str]:
    return list(usernames_with_role(team_id=team.pk, roles=APPROVING_ROLES))


@login_required
def approval_policy_view(request: HttpRequest, slug: str) -> HttpResponse:
    team = team_get_for_user(user=request.user, slug=slug)
    is_admin = role_allows(team.user_role, Role.ADMIN)
    names = _reviewer_names(team)
    required, _rules, rows = policy_rules(team)
    initial_rules = [
        {"name": row.name, "min_approvals": row.min_approvals, "role": row.role,
         "reviewers": [member.get_username() for member in row.members.all()]}
        for row in rows
    ]  # fmt: skip
    status = 200
    if request.method == "POST":
        if not is_admin:
            raise PermissionDenied(_("Only a team admin can do this."))
        form = ApprovalPolicyForm(request.POST)
        rule_forms = ApprovalRuleFormSet(
            request.POST, prefix="rules", form_kwargs={"reviewer_names": names}
        )
        if form.is_valid() and rule_forms.is_valid():
            rules = [rule for f in rule_forms if (rule := f.to_input()) is not None]
            try:
                approval_policy_set(
                    team=team,
                    actor=request.user,
                    required_approvals=form.cleaned_data["required_approvals"],
                    rules=rules,
                )
            except EvaluationError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, _("The approval policy was saved."))
                return redirect("teams:approval-policy", slug=team.slug)
        status = 400
    else:
        form = ApprovalPolicyForm(initial={"required_approvals": required})
        rule_forms = ApprovalRuleFormSet(
            initial=initial_rules, prefix="rules", form_kwargs={"reviewer_names": names}
        )
    return render(
        request,
        "teams/approval_policy.html",
        {"team": team, "is_admin": is_admin, "form": form, "rule_forms": rule_forms,
         "required": required, "rows": rows, "reviewer_names": names},
        status=status,
    )  # fmt: skip


@login_required
@require_POST
@maps_domain_errors
def review_request_view(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation = evaluation_for(request, pk)
    chosen = request.POST.get("reviewer", "")
    reviewer = None
    if chosen.isdigit() and len(chosen) < 19:
        reviewer = (
            get_user_model()
            .objects.filter(pk=int(chosen), memberships__team_id=evaluation.team_id)
            .first()
        )
    if reviewer is None:
        raise Http404("No such member")
    review_request_create(evaluation=evaluation, actor=request.user, reviewer=reviewer)
    messages.success(
        request,
        _("%(name)s was asked to review it (inbox and e-mail).")
        % {"name": reviewer.get_username()},
    )
    return redirect("evaluations:detail", pk=evaluation.pk)
