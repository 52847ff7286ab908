"""Prepare the local demo: the built-in catalog and a demo account whose credentials are printed."""

from __future__ import annotations

import os
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand

MAINTAINERS = "Catalog maintainers"


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
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo account ready: username {user.username!r}, password {password!r} "
                f"(a new password each run). Open {options['url']}"
            )
        )
