"""Forms of the account pages: accounts a researcher creates, invitation links, and sign-up (with a
project code or through a link). Passwords go through Django's own ``UserCreationForm``, so the
project's password validators apply everywhere a password is chosen."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.forms.utils import ErrorDict

from annotation.accounts.joining import AccountError, AccountRequest, parse_account_lines, project_for_code
from annotation.judging.platforms import CODE_PATTERN, return_url_problem
from annotation.models import Project, StudyLink


class AccountsForm(forms.Form):
    accounts = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5, "autocomplete": "off"}),
        label="Accounts",
        help_text="One per line: a username, optionally followed by an email address (needed to reset a "
        "forgotten password), e.g. “maria maria@example.org”.",
    )
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        required=False,
        label="Password (optional)",
        help_text="For a single account only. Leave it empty and each account gets a generated password.",
    )

    def clean_accounts(self) -> list[AccountRequest]:
        try:
            return parse_account_lines(self.cleaned_data["accounts"])
        except AccountError as error:
            raise forms.ValidationError(str(error)) from error


class InvitationForm(forms.Form):
    max_uses = forms.IntegerField(
        min_value=1,
        max_value=10_000,
        required=False,
        initial=1,
        label="How many people may use it",
        help_text="1 for one person; empty for anyone with the link until it expires.",
    )
    days = forms.IntegerField(min_value=1, max_value=90, initial=7, label="Expires after (days)")
    note = forms.CharField(
        max_length=200, required=False, label="Note", help_text="Whom it is for (only you see it)."
    )


class AccountCreationForm(UserCreationForm):
    """Django's sign-up form (username, password twice, its validators) with an optional email."""

    email = forms.EmailField(
        required=False,
        label="Email (optional)",
        help_text="Only to reset your password if you forget it.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class CodeField(forms.CharField):
    def __init__(self, **kwargs) -> None:
        super().__init__(
            max_length=40,
            label="Project code",
            help_text="The code your researcher gave you, e.g. ABCDE-FGHJK.",
            widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
            **kwargs,
        )


class CodeMixin:
    """Finds the project of the code; ``wrong_code`` tells the view to count a failed guess."""

    wrong_code = False
    cleaned_data: dict

    def clean_code(self) -> Project:
        project = project_for_code(self.cleaned_data["code"])
        if project is None:
            self.wrong_code = True
            raise forms.ValidationError(
                "No open project takes sign-ups with this code. Check it with your researcher: it may "
                "have been replaced or switched off."
            )
        return project


class SignupForm(CodeMixin, AccountCreationForm):
    code = CodeField()
    field_order = ["code", "username", "email", "password1", "password2"]

    def full_clean(self) -> None:
        """Without a right code, say only that: the other fields' errors ("a user with that username
        already exists") would tell a stranger which usernames exist."""
        super().full_clean()
        code_errors = self.errors.get("code")
        if code_errors:
            self._errors: ErrorDict = ErrorDict({"code": code_errors})


class JoinWithCodeForm(CodeMixin, forms.Form):
    """Someone logged in joins a project with its code, as the account they have."""

    code = CodeField()


class StudyLinkForm(forms.ModelForm):
    """A study link for a crowd platform; the session's size is a number of tasks, minutes, or both."""

    class Meta:
        model = StudyLink
        fields = (
            "platform",
            "note",
            "tasks_per_session",
            "minutes_per_session",
            "sessions_per_worker",
            "completion_code",
            "screenout_code",
            "return_url",
            "gold_failures_allowed",
        )
        help_texts = {"completion_code": "Prolific's completion code for the study; empty: one is made."}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["completion_code"].required = False
        self.fields["sessions_per_worker"].required = False
        self.fields["tasks_per_session"].initial = 10

    def clean_sessions_per_worker(self) -> int:
        return self.cleaned_data.get("sessions_per_worker") or 1

    def clean_completion_code(self) -> str:
        return self._code("completion_code")

    def clean_screenout_code(self) -> str:
        return self._code("screenout_code")

    def _code(self, field: str) -> str:
        code = self.cleaned_data.get(field, "").strip()
        if code and not CODE_PATTERN.match(code):
            raise forms.ValidationError("letters, digits, - and _ only")
        return code

    def clean_return_url(self) -> str:
        template = self.cleaned_data.get("return_url", "").strip()
        problem = return_url_problem(template)
        if problem:
            raise forms.ValidationError(problem)
        return template

    def clean(self) -> dict:
        data = super().clean() or {}
        if not data.get("tasks_per_session") and not data.get("minutes_per_session"):
            self.add_error("tasks_per_session", "give a session a number of tasks, minutes, or both")
        if data.get("platform") == StudyLink.Platform.OTHER and not data.get("return_url"):
            self.add_error("return_url", "another platform needs the address its workers return to")
        return data
