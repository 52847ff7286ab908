"""The recovery sweep: jobs whose message was lost or whose worker died are sent again or failed.

Run every minute by Celery beat (`evaluations.tasks.recover_jobs`) and by operators with
`python manage.py recover_jobs`. Every job kind is safe to send twice (each claims its row with
a conditional update), so the sweep only has to decide *when* a job looks orphaned.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from catalog.imports.services import imports_recover
from catalog.matrix.services import matrix_recover
from evaluations.decisions.drift import drift_recover
from evaluations.notifications.mail import emails_recover
from evaluations.notifications.webhooks import webhooks_recover
from evaluations.reports.services import reports_recover
from evaluations.simulations.services import capacity_recover

# A job still pending after this long was never picked up (its publish was lost, or the broker
# was down): a healthy queue starts jobs in seconds.
PENDING_GRACE = timedelta(minutes=2)
# A running job writes a heartbeat at every step (seconds apart); one silent this long has lost
# its worker. With the sweep every minute, a dead worker's job is noticed within two minutes.
HEARTBEAT_SILENCE = timedelta(seconds=60)
RUNNING_LIMITS = {
    "imports": HEARTBEAT_SILENCE,
    "matrix": HEARTBEAT_SILENCE,
    "reports": HEARTBEAT_SILENCE,
    "capacity": HEARTBEAT_SILENCE,
    "webhooks": HEARTBEAT_SILENCE,
}
# Catalog changes whose drift check may have been lost are looked at for this long; older ones
# are for `python manage.py check_catalog_drift`.
DRIFT_WINDOW = timedelta(days=1)
# An e-mail still unsent is tried again by the sweep for this long (the job retries on its own
# first); the notification stays in the inbox whatever happens.
EMAIL_WINDOW = timedelta(hours=1)


def jobs_recover(*, now=None) -> dict[str, dict[str, int]]:
    """What the sweep did, per job kind: {"imports": {"republished": n, ...}, ...}."""
    now = now or timezone.now()
    with transaction.atomic():  # messages go out once the sweep's reads are done
        return {
            "imports": imports_recover(
                now=now, pending_grace=PENDING_GRACE, running_limit=RUNNING_LIMITS["imports"]
            ),
            "matrix": matrix_recover(
                now=now, pending_grace=PENDING_GRACE, running_limit=RUNNING_LIMITS["matrix"]
            ),
            "reports": reports_recover(
                now=now, pending_grace=PENDING_GRACE, running_limit=RUNNING_LIMITS["reports"]
            ),
            "capacity": capacity_recover(
                now=now, pending_grace=PENDING_GRACE, running_limit=RUNNING_LIMITS["capacity"]
            ),
            "webhooks": webhooks_recover(
                now=now, pending_grace=PENDING_GRACE, running_limit=RUNNING_LIMITS["webhooks"]
            ),
            "emails": emails_recover(now=now, pending_grace=PENDING_GRACE, window=EMAIL_WINDOW),
            "catalog_drift": drift_recover(
                now=now, pending_grace=PENDING_GRACE, window=DRIFT_WINDOW
            ),
        }
