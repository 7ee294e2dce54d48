"""Text that people type: the one place that decides what a name or a line of text may hold.

Every form and model of the site uses the fields below (issue 11, finding 6):

* **Single-line text** (a reason, a note) refuses control characters: a title with CR/LF would
  break every email it is the subject of, a NUL byte breaks PostgreSQL. Unicode line and paragraph
  separators, bidirectional controls (U+202E "right-to-left override" turns ``gnp.exe`` into
  ``exe.png``), private-use, unassigned and surrogate code points are refused too.
* **Multi-line text** (a description) refuses the same, but keeps tabs and line breaks.
* **Names** (leagues, seasons, teams, ninja, newsletter titles) are single lines, normalised:
  NFKC (a full-width ``Ｐｒｏｂｅ`` is ``Probe``), invisible format characters removed (zero-width
  space and joiners, byte-order mark, soft hyphen: copy-and-paste debris that makes two names look
  the same), every run of spaces (no-break, em, ideographic...) one space, no space at either end.
  A name must then have a visible character (a letter, digit, punctuation or symbol), and no word
  of it may mix alphabets the way a spoof does (``Leаgue`` with a Cyrillic ``а``): each word is
  written in one script, or in Latin with the scripts Japanese, Chinese or Korean combine (Han with
  Hiragana and Katakana, with Bopomofo, or with Hangul), as Unicode's "highly restrictive" level
  (UTS #39) allows.
* **Uniqueness** compares :func:`name_key`: the normalised name, case-folded, with every letter of
  another script that has a Latin look-alike replaced by it (UTS #39's confusables, from the
  ``confusable-homoglyphs`` package). "Probe League", "PROBE LEAGUE", "Probe\u00a0League",
  "Probe League\u200b" and "Prοbe League" (Greek omicron) share one key; models keep it in a
  column with a unique constraint, so the database refuses the second one even when two requests
  race.
* **Documents** (a JSON body of the API, an imported league) may hold no NUL and no lone surrogate
  in any string, key or value (:func:`unstorable`, issue 27, item 16): PostgreSQL's text refuses
  the one and no UTF-8 can encode the other, so either was a 500 wherever it went.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories as unicode_scripts
from confusable_homoglyphs import confusables
from django import forms
from django.core.exceptions import ValidationError
from django.db import models

#: Bidirectional formatting characters: refused anywhere (they reorder what is shown).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Line breaks a multi-line text may hold.
LINE_BREAKS = frozenset("\n\r\t")
#: Scripts that one word may combine (UTS #39 "highly restrictive"); any single script is fine too.
SCRIPT_SETS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "Unknown"})


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def forbidden_characters(value: str, *, multiline: bool = False) -> list[str]:
    """Every character ``value`` may not hold (each once), described for an error message."""
    found: dict[str, None] = {}
    for ch in value:
        if multiline and ch in LINE_BREAKS:
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") or ch in BIDI_CONTROLS:
            found.setdefault(ch)
    return [_describe(ch) for ch in found]


def validate_single_line(value: str) -> None:
    bad = forbidden_characters(value)
    if bad:
        raise ValidationError(
            "Use one line of ordinary text: this has a line break or control character (%(chars)s).",
            code="control_characters",
            params={"chars": ", ".join(bad[:3])},
        )


def validate_multiline(value: str) -> None:
    bad = forbidden_characters(value, multiline=True)
    if bad:
        raise ValidationError(
            "This text has a control character (%(chars)s).",
            code="control_characters",
            params={"chars": ", ".join(bad[:3])},
        )


def normalize_name(value: str) -> str:
    """NFKC, invisible format characters removed (bidirectional controls are kept, to be refused),
    runs of whitespace one space, no space at either end. Idempotent."""
    value = unicodedata.normalize("NFKC", value or "")
    kept = []
    for ch in value:
        category = unicodedata.category(ch)
        if category == "Cf" and ch not in BIDI_CONTROLS:
            continue
        kept.append(" " if category == "Zs" else ch)
    joined = unicodedata.normalize("NFKC", "".join(kept))
    return " ".join(part for part in joined.split(" ") if part)


def has_visible_character(value: str) -> bool:
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in value)


def word_scripts(word: str) -> set[str]:
    return {unicode_scripts.alias(ch) for ch in word if unicodedata.category(ch)[0] in "LM"} - NEUTRAL_SCRIPTS


def mixed_script_words(value: str) -> list[str]:
    """Words that mix scripts the way a spoof does (a Cyrillic letter in a Latin word)."""
    bad = []
    for word in value.split():
        scripts = word_scripts(word)
        if len(scripts) > 1 and not any(scripts <= allowed for allowed in SCRIPT_SETS):
            bad.append(word)
    return bad


def validate_name(value: str) -> None:
    validate_single_line(value)
    if not has_visible_character(value):
        raise ValidationError("A name needs at least one visible letter, digit or sign.", code="invisible")
    mixed = mixed_script_words(value)
    if mixed:
        scripts = sorted(s.title() for s in word_scripts(mixed[0]))
        raise ValidationError(
            "“%(word)s” mixes the letters of %(scripts)s: write each word in one alphabet.",
            code="mixed_scripts",
            params={"word": mixed[0], "scripts": " and ".join(scripts)},
        )


def clean_name(value: str, *, field: str = "name", max_length: int | None = None, what: str = "a name") -> str:
    """The normalised name, or a ValidationError on ``field`` (for services)."""
    name = normalize_name(value)
    if not name:
        raise ValidationError({field: f"Give {what}."})
    if max_length is not None and len(name) > max_length:
        raise ValidationError({field: f"Keep it to {max_length} characters (it has {len(name)})."})
    try:
        validate_name(name)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from exc
    return name


def clean_single_line(value: str, *, field: str, max_length: int | None = None) -> str:
    """A stripped single line of text, or a ValidationError on ``field`` (for services)."""
    text = (value or "").strip()
    try:
        validate_single_line(text)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from exc
    return text[:max_length] if max_length else text


@lru_cache(maxsize=4096)
def _latin_lookalike(ch: str) -> str:
    """``ch`` itself, or the Latin letters it is confusable with when it belongs to another script."""
    if unicode_scripts.alias(ch) in ("LATIN", "COMMON", "INHERITED"):
        return ch
    for glyph in confusables.confusables_data.get(ch, ()):
        candidate = glyph["c"]
        if candidate and all(unicode_scripts.alias(c) == "LATIN" for c in candidate):
            return candidate.casefold()
    return ch


def fold(value: str) -> str:
    """The normalised name, case-folded (NFKC again: folding can undo it)."""
    return unicodedata.normalize("NFKC", normalize_name(value).casefold())


#: The longest key kept (a name of 100 characters, case-folded, rarely passes 200).
KEY_LENGTH = 300


def name_key(value: str) -> str:
    """What uniqueness compares: :func:`fold` with look-alike letters of other scripts made Latin."""
    return "".join(_latin_lookalike(ch) for ch in fold(value))[:KEY_LENGTH]


def same_name_message(new: str, existing: str, *, thing: str, where: str = "") -> str:
    """Why ``new`` is refused next to ``existing`` (the same key): the same name, or a look-alike.
    ``thing`` is "league", "team"...; ``where`` e.g. " in Lantern League"."""
    if fold(new) == fold(existing):
        return (
            f"A {thing} called “{existing}” is already{where}."
            if where
            else f"A {thing} called “{existing}” already exists."
        )
    return f"This name looks the same as that of the {thing} “{existing}”{where}: choose another."


# --- form fields -----------------------------------------------------------------------------------


class SingleLineFormField(forms.CharField):
    default_validators = [validate_single_line]


class MultiLineFormField(forms.CharField):
    default_validators = [validate_multiline]

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", forms.Textarea)
        super().__init__(*args, **kwargs)


class NameFormField(forms.CharField):
    """A name: normalised before it is validated (so ``max_length`` counts what is kept)."""

    default_validators = [validate_name]

    def to_python(self, value):
        value = super().to_python(value)
        return normalize_name(value) if value not in self.empty_values else value


# --- model fields ----------------------------------------------------------------------------------


class SingleLineField(models.CharField):
    default_validators = [validate_single_line]

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": SingleLineFormField, **kwargs})


class MultiLineField(models.TextField):
    default_validators = [validate_multiline]

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": MultiLineFormField, **kwargs})


class NameField(models.CharField):
    """A name, stored normalised (whoever saves it), validated by its form field and full_clean."""

    default_validators = [validate_name]

    def pre_save(self, model_instance, add):
        value = normalize_name(getattr(model_instance, self.attname) or "")
        setattr(model_instance, self.attname, value)
        return value

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": NameFormField, **kwargs})


class NameKeyField(models.CharField):
    """:func:`name_key` of the model's ``source`` field, computed whenever the row is saved.

    Models with one inherit :class:`NameKeyMixin`, so ``save(update_fields=[source])`` saves the key
    too; a unique constraint on it is what keeps names unique.
    """

    def __init__(self, *args, source: str = "name", **kwargs):
        self.source = source
        kwargs.setdefault("editable", False)
        kwargs.setdefault("max_length", KEY_LENGTH)
        kwargs.setdefault("default", "")
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["source"] = self.source
        return name, path, args, kwargs

    def pre_save(self, model_instance, add):
        value = name_key(getattr(model_instance, self.source) or "")
        setattr(model_instance, self.attname, value)
        return value


class NameKeyMixin:
    """For models with a :class:`NameKeyField`: keep the key in step on partial saves, and before
    ``full_clean`` checks the unique constraints that use it."""

    def _name_key_fields(self):
        return [f for f in self._meta.concrete_fields if isinstance(f, NameKeyField)]

    def refresh_name_keys(self) -> None:
        for f in self._name_key_fields():
            setattr(self, f.attname, name_key(getattr(self, f.source) or ""))

    def clean(self):
        super().clean()
        self.refresh_name_keys()

    def save(self, *args, update_fields=None, **kwargs):
        if update_fields is not None:
            update_fields = set(update_fields)
            update_fields |= {f.name for f in self._name_key_fields() if f.source in update_fields}
        super().save(*args, update_fields=update_fields, **kwargs)


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable(document) -> str | None:
    """What makes a parsed JSON document unfit for any field: "a NUL character" or "a lone
    surrogate" in one of its strings (keys included, at any depth), or None. One pass over the
    document, without recursion."""
    pending = [document]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _UNSTORABLE.search(item)
            if found:
                return "a NUL character" if found.group() == "\x00" else "a lone surrogate"
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None
