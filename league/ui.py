"""Small shared pieces of the user interface."""
from __future__ import annotations

from crispy_forms.layout import Submit


class StyledSubmit(Submit):
    """A submit button with exactly the Bootstrap style given. (crispy's Submit always keeps
    `btn-primary` and adds the extra class, so an outline button came out as text on blue.)"""

    def __init__(self, name: str, value: str, *, style: str = "btn-primary", **kwargs):
        self.field_classes = f"btn {style}"
        super().__init__(name, value, **kwargs)
