"""Evaluation pages: list, the four steps, comparison, recommendations, decision, review."""

from django.urls import path

from evaluations import views
from evaluations.approvals import views as approval_views
from evaluations.decisions import views as decision_views
from evaluations.review import views as review_views
from evaluations.sharing import views as share_views
from evaluations.steps import candidates as step_candidates
from evaluations.steps import views as step_views

app_name = "evaluations"

urlpatterns = [
    path("", views.evaluation_list_view, name="list"),
    path("new/", views.evaluation_create_view, name="create"),
    path("<int:pk>/", views.evaluation_detail_view, name="detail"),
    path("<int:pk>/steps/<int:number>/", step_views.evaluation_step_view, name="step"),
    path(
        "<int:pk>/steps/1/trace/",
        step_views.evaluation_trace_upload_view,
        name="trace-upload",
    ),
    # Step 3 without reloads (JSON): search as you type, add and remove a candidate.
    path(
        "<int:pk>/candidates/search/",
        step_candidates.candidate_search_view,
        name="candidate-search",
    ),
    path("<int:pk>/candidates/add/", step_candidates.candidate_add_view, name="candidate-add"),
    path(
        "<int:pk>/candidates/<int:candidate>/remove/",
        step_candidates.candidate_remove_view,
        name="candidate-remove",
    ),
    path("<int:pk>/comparison/", views.evaluation_comparison_view, name="comparison"),
    path(
        "<int:pk>/recommendations/",
        views.evaluation_recommendations_view,
        name="recommendations",
    ),
    path("<int:pk>/decision/", decision_views.evaluation_decision_view, name="decision"),
    path("<int:pk>/shares/", share_views.share_list_view, name="shares"),
    path(
        "<int:pk>/shares/<int:link_id>/revoke/",
        share_views.share_revoke_view,
        name="share-revoke",
    ),
    path("<int:pk>/what-if/", decision_views.evaluation_whatif_view, name="what-if"),
    path("<int:pk>/submit/", review_views.evaluation_submit_view, name="submit"),
    path("<int:pk>/review/", review_views.evaluation_review_view, name="review"),
    path(
        "<int:pk>/review-requests/",
        approval_views.review_request_view,
        name="review-request",
    ),
    path("<int:pk>/archive/", review_views.evaluation_archive_view, name="archive"),
    path("<int:pk>/clone/", decision_views.evaluation_clone_view, name="clone"),
    path("<int:pk>/diff/", review_views.evaluation_diff_view, name="diff"),
    path("<int:pk>/comments/", review_views.comment_add_view, name="comment-add"),
    path(
        "<int:pk>/comments/<int:comment_id>/resolve/",
        review_views.comment_resolve_view,
        name="comment-resolve",
    ),
]
