"""The six elements by their initials, for the dice tables of the engine's tests."""

from rules.engine.dice import Element

S, V, E, A, W, F = (
    Element.SPIRIT,
    Element.VOID,
    Element.EARTH,
    Element.AIR,
    Element.WATER,
    Element.FIRE,
)
