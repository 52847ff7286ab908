"""The quick demo: SQLite and eager Celery unless the environment says otherwise."""

from .base import *  # noqa: F403
from .base import BASE_DIR, env

DEBUG = env.bool("DEBUG", default=True)
# Serve static files from the app folders without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# The demo writes e-mails to files in tmp/mail/ (one file per sending), so the terminal keeps
# the address and the login in view; EMAIL_URL=consolemail:// prints them, or a real server.
if env.str("EMAIL_URL", default=""):
    vars().update(env.email_url("EMAIL_URL"))
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = env.path("DEMO_MAIL_DIR", default=BASE_DIR / "tmp" / "mail")
