"""Errors as JSON: a service's ValidationError is a 400 with its messages (DRF turns Django's
PermissionDenied and Http404 into 403 and 404 already)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError({"detail": exc.messages})
    return drf_exception_handler(exc, context)
