"""The cluster page's upload form: a snapshot file and the team it belongs to."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.engine.cluster import MAX_BODY_BYTES


class SnapshotUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Snapshot file"),
        help_text=_("The JSON file scripts/collect-cluster writes (ecomap.cluster/v1)."),
    )
    team = forms.ChoiceField(label=_("Team"))

    def __init__(self, *args, teams=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["team"].choices = [(team.slug, team.name) for team in teams]
        self.fields["file"].widget.attrs["accept"] = ".json,application/json"

    def clean_file(self):
        upload = self.cleaned_data["file"]
        # The size is known before a byte is read: refuse a big file without reading it.
        if upload.size > MAX_BODY_BYTES:
            raise forms.ValidationError(
                _("The file is %(size)s bytes; at most %(limit)s are accepted.")
                % {"size": f"{upload.size:,}", "limit": f"{MAX_BODY_BYTES:,}"},
                code="too_large",
            )
        return upload
