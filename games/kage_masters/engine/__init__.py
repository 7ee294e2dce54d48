"""Kage Masters' league rules as pure Python: standard library only, no Django (a test enforces it)."""

from . import results
from .results import *  # noqa: F403 (the names of results.__all__)

__all__ = results.__all__
