"""Team forms: input shapes only; the rules (who may, last admin, URL policy) are the services'."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.teams.choices import Role


class TeamCreateForm(forms.Form):
    name = forms.CharField(label=_("Team name"), max_length=120)
    slug = forms.CharField(
        label=_("Short name"),
        max_length=80,
        required=False,
        help_text=_("Letters, digits and hyphens, used in addresses; made from the name if empty."),
    )


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)


class InvitationForm(forms.Form):
    email = forms.EmailField(label=_("E-mail"), max_length=254)
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, initial=Role.REVIEWER)


class WebhookForm(forms.Form):
    url = forms.CharField(
        label=_("Webhook URL"),
        max_length=500,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "https://hooks.example.com/ecomap"}),
        help_text=_("Leave empty to turn the webhook off."),
    )
    secret = forms.CharField(
        label=_("Secret"),
        max_length=128,
        required=False,
        strip=True,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}, render_value=False),
        help_text=_("Signs each delivery (HMAC-SHA256). Leave empty to keep the current one."),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        required=False,  # left out: the stored format stays
        choices=[
            ("generic", _("EcoMap JSON, signed (X-EcoMap-Signature)")),
            ("slack", _("Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat)")),
            ("feishu", _("Feishu / Lark custom bot (signed with the secret)")),
        ],
        initial="generic",
    )


class InvitationSignupForm(forms.Form):
    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        cleaned = super().clean()
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", _("The two passwords differ."))
        return cleaned
