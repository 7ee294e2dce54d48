"""The catalog as loaded into the database (data migration 0002 / `load_catalog`).

Spot values are read back from the database and compared with the Ninja All-Stars rulebook
(/work/shared/seeds/ninja-all-stars-rulebook.txt); each one was checked by hand against the book,
and the comment beside it quotes the line it comes from.
"""

from __future__ import annotations

from collections import Counter

import pytest
from django.db.models import Count

from rules.catalog import load_catalog
from rules.models import (
    AdvancementRow,
    Challenge,
    ChallengeXpAward,
    Clan,
    DowntimeRow,
    Keyword,
    Profile,
    RandomChallengeColumn,
    RandomChallengeRow,
    RevenueRow,
    SentryProfile,
    SpecialAbility,
    StatusEffect,
    XpLevel,
)
from tests.rules.rulebook import CLAN_ELEMENTS, STATUS_EFFECTS

pytestmark = pytest.mark.usefixtures("catalog")

ALL_ELEMENTS = {"Spirit", "Void", "Earth", "Air", "Water", "Fire"}
CLAN_TYPES = [
    Profile.Kind.CHUNIN,
    Profile.Kind.KAIKEN,
    Profile.Kind.YAJIRI,
    Profile.Kind.MADOUSHI,
    Profile.Kind.KUNOICHI,
    Profile.Kind.ONI,
]

CATALOG_MODELS = [
    Clan,
    Keyword,
    Profile,
    SpecialAbility,
    Challenge,
    ChallengeXpAward,
    StatusEffect,
    SentryProfile,
    XpLevel,
    AdvancementRow,
    DowntimeRow,
    RevenueRow,
    RandomChallengeRow,
    RandomChallengeColumn,
]


def profile(slug: str) -> Profile:
    return Profile.objects.select_related("clan").get(slug=slug)


def keyword_names(p: Profile) -> set[str]:
    return set(p.keywords.values_list("name", flat=True))


def ability_names(p: Profile) -> list[str]:
    return list(p.abilities.order_by("order").values_list("name", flat=True))


# --------------------------------------------------------------------------- counts


def test_counts():
    assert Clan.objects.count() == 6
    clan_profiles = Profile.objects.exclude(kind=Profile.Kind.RONIN)
    assert clan_profiles.count() == 48
    assert clan_profiles.filter(kind__in=CLAN_TYPES).count() == 36
    assert clan_profiles.filter(kind=Profile.Kind.HERO).count() == 12
    assert Profile.objects.filter(kind=Profile.Kind.RONIN).count() == 18
    assert Keyword.objects.count() == 50
    assert Challenge.objects.count() == 8
    assert StatusEffect.objects.count() == 9
    assert SentryProfile.objects.count() == 1
    assert XpLevel.objects.count() == 7
    assert AdvancementRow.objects.count() == 6
    assert DowntimeRow.objects.count() == 6
    assert RevenueRow.objects.count() == 2
    assert RandomChallengeRow.objects.count() == 6
    assert RandomChallengeColumn.objects.count() == 6


def test_keyword_counts_per_category():
    assert Counter(Keyword.objects.values_list("category", flat=True)) == {
        "General": 11,
        "Air": 6,
        "Earth": 6,
        "Fire": 6,
        "Spirit": 6,
        "Water": 6,
        "Void": 6,
        "Unique": 3,
    }


def test_each_clan_has_six_types_and_two_heroes():
    for clan in Clan.objects.all():
        kinds = Counter(clan.profiles.values_list("kind", flat=True))
        assert kinds == {**{k.value: 1 for k in CLAN_TYPES}, "hero": 2}, clan.name


def test_ronin_have_no_clan_and_an_upkeep_heroes_have_no_upkeep():
    assert not Profile.objects.filter(kind=Profile.Kind.RONIN, clan__isnull=False).exists()
    assert not Profile.objects.filter(kind=Profile.Kind.RONIN, upkeep__isnull=True).exists()
    assert not Profile.objects.exclude(kind=Profile.Kind.RONIN).filter(clan__isnull=True).exists()
    assert not Profile.objects.exclude(kind=Profile.Kind.RONIN).filter(upkeep__isnull=False).exists()


def test_every_hero_and_ronin_has_its_unique_keyword():
    for p in Profile.objects.filter(kind=Profile.Kind.HERO).prefetch_related("keywords"):
        assert "Hero" in {k.name for k in p.keywords.all()}, p.slug
    for p in Profile.objects.filter(kind=Profile.Kind.RONIN).prefetch_related("keywords"):
        assert "Ronin" in {k.name for k in p.keywords.all()}, p.slug


def test_choose_abilities_never_exceeds_the_abilities_listed():
    for p in Profile.objects.prefetch_related("abilities"):
        assert p.choose_abilities <= len(p.abilities.all()), p.slug


# --------------------------------------------------------------------------- idempotent reload


def _snapshot() -> dict[str, object]:
    return {
        "counts": {m.__name__: m.objects.count() for m in CATALOG_MODELS},
        "keyword_links": Profile.keywords.through.objects.count(),
        "ids": {m.__name__: sorted(m.objects.values_list("pk", flat=True)) for m in CATALOG_MODELS},
    }


def test_loading_twice_changes_nothing():
    before = _snapshot()
    load_catalog()
    load_catalog()
    after = _snapshot()
    assert after == before  # same rows, same primary keys: updated in place, nothing duplicated
    assert not Profile.objects.values("slug").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert not SpecialAbility.objects.values("profile", "name").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert not ChallengeXpAward.objects.values("challenge", "key").annotate(n=Count("id")).filter(n__gt=1).exists()


def test_reload_restores_a_corrected_row_and_removes_strays():
    """The loader is the source of truth for what it owns: a stray ability is removed, a changed
    stat is put back (the admin note on slugs relies on this matching)."""
    ika = profile("ika-chunin")
    SpecialAbility.objects.create(profile=ika, name="Stray", text="Not in the book.")
    Profile.objects.filter(pk=ika.pk).update(movement=9)
    load_catalog()
    ika.refresh_from_db()
    assert ika.movement == 5
    assert ability_names(ika) == ["Fisherman's Spear", "Net"]


# --------------------------------------------------------------------------- rulebook spot values


def test_clans_and_elements():
    # "Clan Tora / Affinity: Fire (all non-Hero models)" ... "Clan Ijin / Affinity: Void (all models)"
    assert list(Clan.objects.values_list("name", "element")) == CLAN_ELEMENTS


def test_ika_chunin():
    # "Movement 5, Attack 3, Defense 4, Koban 21. Affinity: Water. Allowance: 1. Keyword Abilities:
    #  Close Combat Master, Water Mastery. Choose 1 ability: Fisherman's Spear / Net"
    p = profile("ika-chunin")
    assert (p.clan.name, p.kind, p.movement, p.attack, p.defense, p.koban) == ("Ika", "chunin", 5, 3, 4, 21)
    assert p.affinities == ["Water"]
    assert (p.allowance_min, p.allowance_max) == (1, 1)
    assert keyword_names(p) == {"Close Combat Master", "Water Mastery"}
    assert p.choose_abilities == 1
    assert ability_names(p) == ["Fisherman's Spear", "Net"]
    assert p.upkeep is None


def test_tora_chunin():
    # "Movement 5, Attack 4, Defense 3, Koban 20 ... Choose 1 ability: Pounce ... Tiger Strike"
    p = profile("tora-chunin")
    assert (p.movement, p.attack, p.defense, p.koban) == (5, 4, 3, 20)
    assert p.choose_abilities == 1
    assert set(ability_names(p)) == {"Pounce", "Tiger Strike"}
    assert "+3 Attack" in p.abilities.get(name="Tiger Strike").text


def test_kitsune_kaiken_and_yajiri_allowances():
    # Kitsune "Kaiken: Movement 6, Attack 2, Defense 3, Koban 10. ... Allowance: 1-3."
    p = profile("kitsune-kaiken")
    assert (p.movement, p.attack, p.defense, p.koban) == (6, 2, 3, 10)
    assert (p.allowance_min, p.allowance_max) == (1, 3)
    assert p.allowance_display == "1-3"
    # Kitsune "Yajiri ... Koban 9 ... Allowance: 1-3. Ranged 5: +1 Attack, Stealthy. If a Spirit is rolled..."
    y = profile("kitsune-yajiri")
    assert (y.koban, y.allowance_min, y.allowance_max, y.ranged, y.ranged_attack_bonus) == (9, 1, 3, 5, 1)
    assert "Poisoned" in y.ranged_text


def test_tanchyo_swaps_kaiken_and_yajiri_allowances():
    # Tanchyo "Kaiken ... Koban 11 ... Allowance: 0-2." and "Yajiri ... Koban 7 ... Allowance: 2-4."
    assert (profile("tanchyo-kaiken").allowance_min, profile("tanchyo-kaiken").allowance_max) == (0, 2)
    assert (profile("tanchyo-yajiri").allowance_min, profile("tanchyo-yajiri").allowance_max) == (2, 4)
    # Tanchyo chunin "Movement 6, Attack 4, Defense 3, Koban 23 ... Ranged 6."
    c = profile("tanchyo-chunin")
    assert (c.movement, c.attack, c.defense, c.koban, c.ranged) == (6, 4, 3, 23, 6)


def test_tora_yajiri_ranged():
    # "Movement 5, Attack 2, Defense 1, Koban 8. Affinity: Fire. Allowance: 0-2. Ranged 5: +2 Attack."
    p = profile("tora-yajiri")
    assert (p.movement, p.attack, p.defense, p.koban) == (5, 2, 1, 8)
    assert (p.ranged, p.ranged_attack_bonus) == (5, 2)


def test_yamazaru_oni_and_madoushi():
    # "Oni: Movement 4, Attack 4, Defense 4, Koban 20 ... Keyword Abilities: Resilient, Yamazaru's Tail"
    oni = profile("yamazaru-oni")
    assert (oni.movement, oni.attack, oni.defense, oni.koban) == (4, 4, 4, 20)
    assert keyword_names(oni) == {"Resilient", "Yamazaru's Tail"}
    # "Madoushi ... Koban 13 ... Choose 1 ability: Healing Herbs / Mountain Flute"
    mad = profile("yamazaru-madoushi")
    assert mad.koban == 13 and mad.choose_abilities == 1
    assert ability_names(mad) == ["Healing Herbs", "Mountain Flute"]


def test_ijin_profiles():
    # "Oni: Movement 4, Attack 5, Defense 2, Koban 18 ... Ijin's Horns, Resilient"
    oni = profile("ijin-oni")
    assert (oni.movement, oni.attack, oni.defense, oni.koban) == (4, 5, 2, 18)
    assert keyword_names(oni) == {"Ijin's Horns", "Resilient"}
    # "Kunoichi: Movement 7, Attack 2, Defense 1, Koban 9 ... Allowance: 1-3. Keyword Abilities: Backstab, Nimble."
    k = profile("ijin-kunoichi")
    assert (k.movement, k.koban, k.allowance_min, k.allowance_max) == (7, 9, 1, 3)
    assert keyword_names(k) == {"Backstab", "Nimble"}
    # "Yobuko (Hero): Movement 5, Attack 5, Defense 4, Koban 25"
    y = profile("ijin-yobuko")
    assert (y.kind, y.movement, y.attack, y.defense, y.koban) == ("hero", 5, 5, 4, 25)


def test_heroes():
    # "Byakko (Hero): Movement 5, Attack 4, Defense 3, Koban 24. Affinity: Fire, Earth. Keyword
    #  Abilities: Close Combat Master, Hero, Precision Strike, Regeneration, Resilient, Tora's Claws."
    b = profile("tora-byakko")
    assert (b.kind, b.movement, b.attack, b.defense, b.koban) == ("hero", 5, 4, 3, 24)
    assert set(b.affinities) == {"Fire", "Earth"}
    assert keyword_names(b) == {
        "Close Combat Master",
        "Hero",
        "Precision Strike",
        "Regeneration",
        "Resilient",
        "Tora's Claws",
    }
    assert ability_names(b) == ["Vault"]
    assert b.allowance_min is None and b.allowance_max is None and b.choose_abilities == 0
    # "Mizuchi (Hero): Movement 5, Attack 3, Defense 5, Koban 23 ... Sensei. Flashing Spear"
    m = profile("ika-mizuchi")
    assert (m.movement, m.attack, m.defense, m.koban) == (5, 3, 5, 23)
    assert "Hero" in keyword_names(m) and "Sensei" in keyword_names(m)
    assert ability_names(m) == ["Flashing Spear"]
    # "Zenyo Ryu (Hero): Movement 6, Attack 4, Defense 2, Koban 21 ... Ranged 7."
    z = profile("tanchyo-zenyo-ryu")
    assert (z.movement, z.attack, z.defense, z.koban, z.ranged) == (6, 4, 2, 21, 7)
    # "Son Goku (Hero): Movement 7, Attack 3, Defense 3, Koban 19"; "Tamamo no Mae (Hero) ... Koban 14"
    assert profile("yamazaru-son-goku").koban == 19
    assert profile("kitsune-tamamo-no-mae").koban == 14


def test_moon_princess():
    # "Movement 7, Attack 2, Defense 2, Koban 18/6. Affinity: all six elements. Keyword Abilities:
    #  Emptiness, Engulf, Fortune, Guard, Redirection, Resilient*, Ronin, Sprint."
    p = profile("moon-princess")
    assert p.clan is None and p.kind == "ronin"
    assert (p.movement, p.attack, p.defense, p.koban, p.upkeep) == (7, 2, 2, 18, 6)
    assert p.koban_display == "18/6"
    assert set(p.affinities) == ALL_ELEMENTS and len(p.affinities) == 6
    assert keyword_names(p) == {
        "Emptiness",
        "Engulf",
        "Fortune",
        "Guard",
        "Redirection",
        "Resilient",
        "Ronin",
        "Sprint",
    }
    assert ability_names(p) == ["Zenith"]


@pytest.mark.parametrize(
    "slug, koban, upkeep",
    [
        ("benkei", 16, 5),  # "Koban 16/5"
        ("howl-yip", 23, 5),  # "Koban 23/5"
        ("inu-clan-kaiken", 13, 3),  # "Koban 13/3"
        ("ondori-clan-kaiken", 14, 3),  # "Koban 14/3"
        ("yagyu-jubei", 24, 6),  # "Koban 24/6"
        ("sun-empire-wandering-samurai", 22, 6),  # "Koban 22/6"
        ("momotaro", 21, 6),  # "Koban 21/6"
    ],
)
def test_ronin_recruit_and_upkeep(slug, koban, upkeep):
    p = profile(slug)
    assert (p.koban, p.upkeep) == (koban, upkeep)


def test_ronin_details():
    # "Kappa: Movement 4, Attack 2, Defense 4, Koban 20/5. Affinity: Earth, Void, Water."
    k = profile("kappa")
    assert (k.movement, k.attack, k.defense) == (4, 2, 4)
    assert set(k.affinities) == {"Earth", "Void", "Water"}
    # "Komuso ... Koban 13/5 ... Resolute Melody / Elixir of Courage" (two abilities, both always)
    komuso = profile("komuso")
    assert ability_names(komuso) == ["Resolute Melody", "Elixir of Courage"] and komuso.choose_abilities == 0
    # "Mochizuki: Movement 6, Attack 2, Defense 2, Koban 18/6 ... Range 5: +2 Attack."
    m = profile("mochizuki")
    assert (m.movement, m.koban, m.upkeep, m.ranged, m.ranged_attack_bonus) == (6, 18, 6, 5, 2)


def test_keywords_text_and_category():
    # Appendix: "Earth: ... Yamazaru's Tail: Attacks made against a model with Yamazaru's Tail do not
    # get back strike bonuses."
    assert Keyword.objects.get(name="Yamazaru's Tail").category == "Earth"
    assert "back strike" in Keyword.objects.get(name="Yamazaru's Tail").text
    # "Fire: ... Tora's Claws: ... gets +1 Attack when attacking models with a Stun token."
    assert Keyword.objects.get(name="Tora's Claws").category == "Fire"
    # "General: ... Wind in the Forest", "Unique: Hero, Resilient, Ronin"
    assert Keyword.objects.get(name="Wind in the Forest").category == "General"
    assert set(Keyword.objects.filter(category="Unique").values_list("name", flat=True)) == {
        "Hero",
        "Resilient",
        "Ronin",
    }
    # "Water: ... Ika's Tentacles", "Void: ... Dirty Fighter", "Spirit: ... Kitsune's Bite", "Air: ... Sprint"
    assert Keyword.objects.get(name="Ika's Tentacles").category == "Water"
    assert Keyword.objects.get(name="Dirty Fighter").category == "Void"
    assert Keyword.objects.get(name="Kitsune's Bite").category == "Spirit"
    assert Keyword.objects.get(name="Sprint").category == "Air"
    assert "+2 spaces" in Keyword.objects.get(name="Sprint").text


@pytest.mark.parametrize(
    "slug, ninjas, rounds",
    [
        ("assassination", 6, 7),  # "Ninjas Allowed: 6" / "Challenge Length: 7 Rounds"
        ("intercept-the-messenger", 7, 9),
        ("champion", 7, 8),
        ("king-of-the-hill", 6, 8),
        ("infiltration", 6, 8),
        ("brawl", 7, 6),  # "Ninjas Allowed: 7" / "Challenge Length: 6 Rounds."
        ("search", 7, 9),
        ("capture-the-medal", 7, 9),
    ],
)
def test_challenges(slug, ninjas, rounds):
    ch = Challenge.objects.get(slug=slug)
    assert (ch.ninjas_allowed, ch.rounds) == (ninjas, rounds)


def test_challenge_xp_awards():
    # Capture the Medal: "picks up a medal, it gets 1 XP ... returns its own team medal ... 1 XP ...
    # captures an enemy's medal, it gets 3 XP."
    ctm = Challenge.objects.get(slug="capture-the-medal")
    assert sorted(ctm.xp_awards.values_list("xp", flat=True)) == [1, 1, 3]
    # Search: "checks a crate, it gets 1 XP. When a model finds an objective, it gets 2 XP."
    assert list(Challenge.objects.get(slug="search").xp_awards.order_by("order").values_list("xp", flat=True)) == [1, 2]
    # Brawl: "Each time a model Injures an enemy model, it gets 1 XP."
    assert list(Challenge.objects.get(slug="brawl").xp_awards.values_list("xp", flat=True)) == [1]
    # Assassination: "Each time a model Injures an enemy VIP, that model gets 2 XP."
    assert list(Challenge.objects.get(slug="assassination").xp_awards.values_list("xp", flat=True)) == [2]


def test_status_effects_and_sentry():
    # Appendix / Status Effects: Curse, Delay, Haste, Lucky, Moon Power, Poison, Protect, Slow, Stun
    assert set(StatusEffect.objects.values_list("name", flat=True)) == set(STATUS_EFFECTS)
    assert "three Stun tokens" in StatusEffect.objects.get(name="Stun").text
    # "Samurai Sentries have the following attributes: Movement 5, Attack 3, Defense 3."
    sentry = SentryProfile.objects.get()
    assert (sentry.name, sentry.movement, sentry.attack, sentry.defense) == ("Samurai Sentry", 5, 3, 3)


def test_league_tables():
    # "0-7 XP New Recruit ... 8-21 XP Experienced ... 246+ XP Legendary"
    levels = list(XpLevel.objects.values_list("level", "name", "min_xp", "max_xp"))
    assert levels[0] == (0, "New Recruit", 0, 7)
    assert levels[1] == (1, "Experienced", 8, 21)
    assert levels[3] == (3, "Shinobi", 43, 70)
    assert levels[-1] == (6, "Legendary", 246, None)
    # Advancement: "Earth | New Keyword | Gain an additional Affinity", "Air | New Keyword | +1 Movement"
    assert AdvancementRow.objects.get(face="Earth").doubles == "Gain an additional Affinity"
    assert AdvancementRow.objects.get(face="Air").doubles == "+1 Movement"
    assert set(AdvancementRow.objects.values_list("result", flat=True)) == {"New Keyword"}
    # Downtime: "Void | Cannot play in the next two games.", "Water | Gets 1 XP."
    assert DowntimeRow.objects.get(face="Void").effect == "Cannot play in the next two games."
    assert DowntimeRow.objects.get(face="Water").effect == "Gets 1 XP."
    # Revenue: "Team won the game | Earns 10 koban", "Team lost the game | Earns 6 koban"
    assert dict(RevenueRow.objects.values_list("result", "koban")) == {"win": 10, "loss": 6}
    # Random challenge: "Void, Fire or Air use Column 1; on Earth, Water or Spirit use Column 2."
    assert dict(RandomChallengeColumn.objects.values_list("face", "column")) == {
        "Void": 1,
        "Fire": 1,
        "Air": 1,
        "Earth": 2,
        "Water": 2,
        "Spirit": 2,
    }
    # "| Air | Intercept the Messenger | Brawl |", "| Earth | Champion | Search |"
    assert RandomChallengeRow.objects.filter(face="Air", column_1="Intercept the Messenger", column_2="Brawl").exists()
    assert RandomChallengeRow.objects.filter(face="Earth", column_1="Champion", column_2="Search").exists()


def test_random_challenge_table_names_real_challenges():
    names = set(Challenge.objects.values_list("name", flat=True))
    named = {
        text
        for row in RandomChallengeRow.objects.all()
        for text in (row.column_1, row.column_2)
        if "chooses" not in text
    }
    assert named == names
