"""The account pages: the account overview, password reset by email, change of email."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy

from common.site import absolute_url
from common.ui import submit_form
from teams import accounts
from teams.forms import EmailChangeForm
from teams.throttling import account_mail_allowed


@login_required
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/account.html", {"account": request.user})


class PasswordResetView(auth_views.PasswordResetView):
    """Django's page, with the mail through the outbox and requests limited per address and email."""

    form_class = accounts.OutboxPasswordResetForm
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form):
        if not account_mail_allowed(self.request, form.cleaned_data["email"]):
            return render(self.request, "registration/account_mail_throttled.html", status=429)
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's page, with the new password stored by ``accounts.account_password_set`` (it revokes
    the API tokens, and the page says so)."""

    form_class = accounts.RevokingSetPasswordForm
    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        if form.revoked:
            messages.info(self.request, accounts.revoked_message(form.revoked))
        return response


@login_required
def email_change(request: HttpRequest) -> HttpResponse:
    form = EmailChangeForm(request.POST if request.method == "POST" else None, user=request.user, request=request)
    if request.method == "POST" and form.is_valid() and not account_mail_allowed(request, form.cleaned_data["email"]):
        return render(request, "registration/account_mail_throttled.html", status=429)

    def confirm_url(token: str) -> str:
        return absolute_url(reverse("email_change_confirm", args=[token]))

    if submit_form(
        request,
        form,
        lambda data: accounts.email_change_request(user=request.user, new_email=data["email"], confirm_url=confirm_url),
        lambda _: (
            f"A confirmation link is on its way to {form.cleaned_data['email']}. Your address changes when you open it."
        ),
    ):
        return redirect("account")
    return render(request, "registration/email_change.html", {"form": form})


@login_required
def email_change_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows what the link changes; POST changes it."""
    try:
        change = accounts.email_change_read(token)
    except ValidationError as exc:
        return render(request, "registration/email_change_confirm.html", {"error": " ".join(exc.messages)}, status=400)
    if change.user.pk != request.user.pk:
        error = "This link belongs to another account: sign in as its owner to use it."
        return render(request, "registration/email_change_confirm.html", {"error": error}, status=403)
    if request.method == "POST":
        try:
            accounts.email_change_confirm(token=token, actor=request.user)
        except ValidationError as exc:
            return render(
                request, "registration/email_change_confirm.html", {"error": " ".join(exc.messages)}, status=400
            )
        messages.success(request, f"Your email address is now {change.new_email}.")
        return redirect("account")
    return render(request, "registration/email_change_confirm.html", {"change": change})
