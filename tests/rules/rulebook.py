"""Facts of the rulebook that several catalog tests check, written once with their source."""

#: "Clan Tora / Affinity: Fire (all non-Hero models)" ... "Clan Ijin / Affinity: Void (all models)",
#: in the rulebook's order: (clan, element).
CLAN_ELEMENTS = [
    ("Tora", "Fire"),
    ("Yamazaru", "Earth"),
    ("Kitsune", "Spirit"),
    ("Ika", "Water"),
    ("Tanchyo", "Air"),
    ("Ijin", "Void"),
]

#: Appendix / Status Effects, in the rulebook's (alphabetical) order.
STATUS_EFFECTS = ["Curse", "Delay", "Haste", "Lucky", "Moon Power", "Poison", "Protect", "Slow", "Stun"]
