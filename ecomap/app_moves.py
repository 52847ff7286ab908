"""What a state-only migration that moves models from one app to another needs besides its state
operations (issue 44: the evaluations rooms with tables became apps)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import migrations


def content_types_moved(models: Iterable[str], *, source: str, target: str) -> migrations.RunPython:
    """Move the content types of `models` (lower-case model names) from app `source` to `target`,
    and back when the migration is unapplied. Their ids stay, so permissions and admin history
    follow; a content type already under `target` is left as it is."""
    models = tuple(models)

    def relabel(old: str, new: str):
        def move(apps, schema_editor):
            ContentType = apps.get_model("contenttypes", "ContentType")
            for model in models:
                if not ContentType.objects.filter(app_label=new, model=model).exists():
                    ContentType.objects.filter(app_label=old, model=model).update(app_label=new)

        return move

    return migrations.RunPython(relabel(source, target), relabel(target, source))
