"""The upload form of the imports page."""

from __future__ import annotations

from pathlib import PurePath

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext_lazy as _

from catalog.imports.models import ImportJob

# What the file name says about the content; the import service also detects it from the text.
MEDIA_TYPES = {
    ".csv": "text/csv",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=_("File"),
        help_text=_("A bundle (JSON or YAML), a CSV file or a CNCF landscape.yml."),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        required=False,
        choices=[("", _("Detect from the content")), *ImportJob.Format.choices],
    )
    source = forms.CharField(
        label=_("Source"),
        required=False,
        max_length=500,
        help_text=_("Who supplied the data (a name or a URL); the file name when left empty."),
    )
    dry_run = forms.BooleanField(
        label=_("Dry run: report what would change, write nothing"), required=False
    )
    replace = forms.BooleanField(
        label=_("Replace whole rows: fields a placement leaves out are cleared"),
        required=False,
        help_text=_(
            "Left unticked, a placement that states only some fields keeps the stored values "
            "of the others."
        ),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.IMPORT_MAX_BYTES
        if upload.size > limit:
            raise forms.ValidationError(
                _("The file is %(size)s; the limit is %(limit)s."),
                params={"size": filesizeformat(upload.size), "limit": filesizeformat(limit)},
            )
        try:
            self.text = upload.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise forms.ValidationError(_("The file is not UTF-8 text.")) from exc
        return upload

    @property
    def content_type(self) -> str:
        upload = self.cleaned_data["file"]
        suffix = PurePath(upload.name or "").suffix.lower()
        return MEDIA_TYPES.get(suffix, upload.content_type or "")
