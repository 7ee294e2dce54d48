from django import template

register = template.Library()


@register.filter
def percent(value) -> str:
    """0.4 -> "40%"; None -> "—"."""
    if value is None:
        return "—"
    return f"{value * 100:.0f}%"


@register.filter
def get(mapping, key):
    """A dict's value by a variable key (None when absent)."""
    return mapping.get(key) if mapping else None
