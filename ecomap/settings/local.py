"""The quick demo: SQLite and eager Celery unless the environment says otherwise."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
# Serve static files from the app folders without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# The demo prints e-mails on the terminal unless EMAIL_URL names a real server.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
