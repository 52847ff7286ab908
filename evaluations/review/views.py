"""The review's pages: submit, the reviewer's verdict, archive, comments, and the diff between two
revisions. Fetch through the access helper, call one service, render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evaluations.errors import InvalidInput
from evaluations.notifications.services import anchor_path
from evaluations.pages import (
    evaluation_for,
    maps_domain_errors,
    page_context,
)
from evaluations.review import comments
from evaluations.review.diffs import selectors as diff_selectors
from evaluations.review.diffs.words import diff_in_words
from evaluations.review.forms import ReviewForm
from evaluations.review.revisions import revisions_of
from evaluations.review.services import (
    evaluation_archive,
    evaluation_review,
    evaluation_submit,
)


@login_required
@require_POST
@maps_domain_errors
def evaluation_submit_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    evaluation_submit(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Submitted for review."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def evaluation_review_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        raise InvalidInput(_("Choose a verdict."), errors=form.errors.get_json_data())
    try:
        evaluation_review(
            evaluation=evaluation,
            actor=request.user,
            verdict=form.cleaned_data["verdict"],
            comment=form.cleaned_data["comment"],
            step_comments=form.step_comments(),
            override_comments=form.overridden_comments(),
        )
    except InvalidInput as exc:  # e.g. open comments: say so on the review panel, keep going
        messages.error(request, exc.message)
        return redirect(f"{reverse('evaluations:detail', args=[pk])}#review")
    messages.success(request, _("Review recorded."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def evaluation_archive_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    evaluation_archive(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Archived."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def comment_add_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    anchor = request.POST.get("anchor", "")
    try:
        comments.comment_add(
            evaluation=evaluation,
            actor=request.user,
            anchor=anchor,
            body=request.POST.get("body", ""),
        )
    except InvalidInput as exc:  # an empty or too long comment: say so on the page it was on
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Comment added."))
    return redirect(f"{anchor_path(evaluation, anchor)}#comments")


@login_required
@require_POST
@maps_domain_errors
def comment_resolve_view(request, pk: int, comment_id: int):
    evaluation = evaluation_for(request, pk)
    comment = comments.comment_get(evaluation=evaluation, pk=comment_id)
    comments.comment_resolve(comment=comment, actor=request.user)
    messages.success(request, _("Comment resolved."))
    return redirect(f"{anchor_path(evaluation, comment.anchor)}#comments")


@login_required
def evaluation_diff_view(request, pk: int):
    """Two revisions compared like a pull request: the changes by section, and who made them."""
    evaluation = evaluation_for(request, pk)
    revisions = revisions_of(evaluation)
    start, end = diff_selectors.default_pair(evaluation)
    error, shown = "", None
    try:
        start = diff_selectors.parse_revision(request.GET.get("from"), start)
        end = diff_selectors.parse_revision(request.GET.get("to"), end)
        compared = diff_selectors.evaluation_diff(evaluation=evaluation, old=start, new=end)
        shown = diff_in_words(compared.diff, compared.labels)
    except diff_selectors.DiffRefused as exc:
        error = str(exc)
    return render(
        request,
        "evaluations/diff.html",
        page_context(
            request,
            evaluation,
            "review",
            revisions=revisions,
            start=start,
            end=end,
            approved=diff_selectors.approved_revisions(evaluation),
            diff=shown,
            error=error,
            unrecorded=diff_selectors.unrecorded_note(evaluation, revisions),
        ),
        status=400 if error else 200,
    )
