"""Existing DRF tokens (stored as they are) become hashed tokens that keep working until they
expire; the plaintext rows are deleted."""

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def hash_tokens(apps, schema_editor):
    Plain = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("accounts", "ApiToken")
    expires = timezone.now() + timedelta(days=settings.API_TOKEN_DAYS)
    for plain in Plain.objects.all():
        ApiToken.objects.update_or_create(
            user_id=plain.user_id,
            defaults={
                "prefix": plain.key[:6],
                "key_hash": hashlib.sha256(plain.key.encode()).hexdigest(),
                "expires_at": expires,
            },
        )
    Plain.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_api_token"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(hash_tokens, migrations.RunPython.noop)]
