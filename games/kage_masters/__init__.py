"""Ninja Dice: Kage Masters (rulebook lines cited as KM l.N): what a league records of a game."""
