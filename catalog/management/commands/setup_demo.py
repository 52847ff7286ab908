"""Prepare the local demo: the built-in catalog and a demo account whose credentials are printed."""

from __future__ import annotations

import logging
import os
import secrets
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand

MAINTAINERS = "Catalog maintainers"
FILE_MAIL = "django.core.mail.backends.filebased.EmailBackend"


@contextmanager
def _quiet_logs():
    """Seeding runs every job in-process; their INFO lines would push the login off screen."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.setLevel(level)


def _mail_files() -> set[str]:
    if settings.EMAIL_BACKEND != FILE_MAIL:
        return set()
    folder = Path(settings.EMAIL_FILE_PATH)
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


class Command(BaseCommand):
    help = "Load the built-in catalog and create (or reset) the demo account; prints its password."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument(
            "--url",
            default=os.environ.get("DEMO_URL", "http://127.0.0.1:8000/"),
            help="the address the demo is served on, printed with the login (make demo passes "
            "its HOST and PORT; default: $DEMO_URL or http://127.0.0.1:8000/)",
        )

    def handle(self, *args, **options):
        mail_before = _mail_files()
        with _quiet_logs():
            self._seed(options)
        self._report(options, new_mail=len(_mail_files() - mail_before))

    def _seed(self, options) -> None:
        call_command("load_catalog", stdout=self.stdout)
        maintainers, _ = Group.objects.get_or_create(name=MAINTAINERS)
        maintainers.permissions.add(Permission.objects.get(codename="maintain_catalog"))
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=options["username"])
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.is_staff = True
        user.is_superuser = True
        user.save()
        user.groups.add(maintainers)
        # A team with a sample evaluation, so the four-step workflow has something to show.
        call_command("seed_demo_team", user.username, stdout=self.stdout)
        self._login = (user.username, password)

    def _report(self, options, *, new_mail: int) -> None:
        """The last lines on the terminal: where the e-mails went, then the address and login."""
        if settings.EMAIL_BACKEND == FILE_MAIL:
            self.stdout.write(
                f"E-mails are written to {settings.EMAIL_FILE_PATH} ({new_mail} new file(s) while "
                "seeding); EMAIL_URL=consolemail:// prints them instead."
            )
        username, password = self._login
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo account ready: username {username!r}, password {password!r} "
                f"(a new password each run). Open {options['url']}"
            )
        )
