"""Pure data checks for rules/data/catalog.json (no Django, no database).

Spot values are copied by hand from the Ninja All-Stars rulebook.
"""

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.rules.rulebook import CLAN_ELEMENTS, STATUS_EFFECTS

CATALOG_PATH = Path(__file__).resolve().parents[2] / "rules" / "data" / "catalog.json"

ELEMENTS = ["Spirit", "Void", "Earth", "Air", "Water", "Fire"]
KINDS = ["chunin", "kaiken", "yajiri", "madoushi", "kunoichi", "oni"]


@pytest.fixture(scope="module")
def catalog():
    with CATALOG_PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def profiles(catalog):
    return {p["slug"]: p for clan in catalog["clans"] for p in clan["profiles"]}


@pytest.fixture(scope="module")
def ronin(catalog):
    return {r["slug"]: r for r in catalog["ronin"]}


@pytest.fixture(scope="module")
def keywords(catalog):
    return {k["name"]: k for k in catalog["keywords"]}


@pytest.fixture(scope="module")
def challenges(catalog):
    return {c["slug"]: c for c in catalog["challenges"]}


# --------------------------------------------------------------------------- structure


def test_top_level_keys(catalog):
    assert set(catalog) == {
        "clans",
        "ronin",
        "keywords",
        "challenges",
        "status_effects",
        "samurai_sentry",
        "tables",
    }
    assert set(catalog["tables"]) == {
        "xp_levels",
        "advancement",
        "downtime",
        "revenue",
        "random_challenge",
    }


def test_six_clans_with_elements(catalog):
    assert [(c["slug"], c["name"], c["element"]) for c in catalog["clans"]] == [
        (name.lower(), name, element) for name, element in CLAN_ELEMENTS
    ]
    notes = {c["slug"]: c["affinity_note"] for c in catalog["clans"]}
    assert notes["tora"] == "Fire (all non-Hero models)"
    assert notes["ijin"] == "Void (all models)"


def test_eight_profiles_per_clan(catalog):
    for clan in catalog["clans"]:
        profiles = clan["profiles"]
        assert len(profiles) == 8, clan["slug"]
        assert [p["kind"] for p in profiles] == [*KINDS, "hero", "hero"]
        for p in profiles[:6]:
            assert p["slug"] == f"{clan['slug']}-{p['kind']}"
            assert p["name"] == p["kind"].capitalize()
            assert p["allowance_min"] is not None
            assert p["allowance_max"] >= p["allowance_min"]
            assert "Hero" not in p["keywords"]
            # every non-hero clan model has the clan's element as its only affinity
            assert p["affinities"] == [clan["element"]]
        for p in profiles[6:]:
            assert p["allowance_min"] is None
            assert p["allowance_max"] is None
            assert "Hero" in p["keywords"]
            assert p["slug"].startswith(clan["slug"] + "-")
            assert clan["element"] in p["affinities"]


def test_profile_fields_are_well_formed(catalog, keywords):
    slugs = []
    for clan in catalog["clans"]:
        for p in clan["profiles"]:
            slugs.append(p["slug"])
            for field in ("movement", "attack", "defense", "koban", "choose_abilities"):
                assert isinstance(p[field], int), (p["slug"], field)
            assert all(a in ELEMENTS for a in p["affinities"])
            assert len(p["keywords"]) == len(set(p["keywords"]))
            assert isinstance(p["notes"], str)
            assert isinstance(p["ranged_text"], str)
            if p["ranged"] is None:
                assert p["ranged_attack_bonus"] is None
                assert p["ranged_text"] == ""
            else:
                assert isinstance(p["ranged_attack_bonus"], int)
                assert p["ranged_text"].startswith(f"Ranged {p['ranged']}")
            for a in p["abilities"]:
                assert set(a) == {"name", "text"}
                assert a["name"] and a["text"]
            if p["choose_abilities"]:
                assert len(p["abilities"]) > p["choose_abilities"]
    assert len(slugs) == len(set(slugs)) == 48


def test_chunin_and_madoushi_choose_one_ability(profiles):
    for clan in ("tora", "yamazaru", "kitsune", "ika", "tanchyo", "ijin"):
        assert profiles[f"{clan}-chunin"]["choose_abilities"] == 1
        assert profiles[f"{clan}-chunin"]["allowance_min"] == 1
        assert profiles[f"{clan}-chunin"]["allowance_max"] == 1
        assert profiles[f"{clan}-madoushi"]["choose_abilities"] == 1
        assert len(profiles[f"{clan}-madoushi"]["abilities"]) == 2
        assert profiles[f"{clan}-kaiken"]["abilities"] == []
        assert profiles[f"{clan}-kaiken"]["choose_abilities"] == 0


def test_eighteen_ronin(catalog):
    assert len(catalog["ronin"]) == 18
    slugs = [r["slug"] for r in catalog["ronin"]]
    assert len(set(slugs)) == 18
    for r in catalog["ronin"]:
        assert "Ronin" in r["keywords"], r["slug"]
        assert isinstance(r["upkeep"], int) and r["upkeep"] > 0, r["slug"]
        assert r["abilities"], r["slug"]
        assert all(a in ELEMENTS for a in r["affinities"])


def test_keyword_count_and_categories(catalog):
    assert len(catalog["keywords"]) == 50
    names = [k["name"] for k in catalog["keywords"]]
    assert len(set(names)) == 50
    assert Counter(k["category"] for k in catalog["keywords"]) == {
        "General": 11,
        "Air": 6,
        "Earth": 6,
        "Fire": 6,
        "Spirit": 6,
        "Water": 6,
        "Void": 6,
        "Unique": 3,
    }
    for k in catalog["keywords"]:
        assert k["text"], k["name"]


def test_referenced_keywords_exist(catalog, keywords):
    referenced = set()
    for clan in catalog["clans"]:
        for p in clan["profiles"]:
            referenced.update(p["keywords"])
    for r in catalog["ronin"]:
        referenced.update(r["keywords"])
    missing = referenced - set(keywords)
    assert not missing, missing


def test_eight_challenges(catalog):
    assert [c["name"] for c in catalog["challenges"]] == [
        "Assassination",
        "Intercept the Messenger",
        "Champion",
        "King of the Hill",
        "Infiltration",
        "Brawl",
        "Search",
        "Capture the Medal",
    ]
    for c in catalog["challenges"]:
        assert c["summary"] and c["special_rules"]
        assert isinstance(c["setup"], str)
        assert c["xp_awards"], c["slug"]
        keys = [a["key"] for a in c["xp_awards"]]
        assert len(keys) == len(set(keys))
        for a in c["xp_awards"]:
            assert isinstance(a["xp"], int) and a["xp"] > 0
            assert f"{a['xp']} XP" in a["text"]


def test_nine_status_effects(catalog):
    assert [s["name"] for s in catalog["status_effects"]] == STATUS_EFFECTS


def test_xp_levels_contiguous(catalog):
    levels = catalog["tables"]["xp_levels"]
    assert len(levels) == 7
    assert [lv["level"] for lv in levels] == list(range(7))
    assert levels[0]["min_xp"] == 0
    for prev, nxt in itertools.pairwise(levels):
        assert nxt["min_xp"] == prev["max_xp"] + 1
    assert levels[-1]["max_xp"] is None


# --------------------------------------------------------------------------- spot values
# Hand-copied from the rulebook.


def _stats(p):
    return (p["movement"], p["attack"], p["defense"], p["koban"])


def test_spot_ika_chunin(profiles):
    p = profiles["ika-chunin"]
    assert _stats(p) == (5, 3, 4, 21)
    assert p["keywords"] == ["Close Combat Master", "Water Mastery"]
    assert [a["name"] for a in p["abilities"]] == ["Fisherman's Spear", "Net"]
    assert p["abilities"][0]["text"] == "The chunin may attack models up to two spaces away."


def test_spot_tora_chunin(profiles):
    p = profiles["tora-chunin"]
    assert p["name"] == "Chunin"
    assert _stats(p) == (5, 4, 3, 20)
    assert p["affinities"] == ["Fire"]
    assert p["keywords"] == ["Close Combat Master", "Fire Mastery"]
    assert [a["name"] for a in p["abilities"]] == ["Pounce", "Tiger Strike"]


def test_spot_tora_yajiri_ranged(profiles):
    p = profiles["tora-yajiri"]
    assert _stats(p) == (5, 2, 1, 8)
    assert (p["ranged"], p["ranged_attack_bonus"]) == (5, 2)
    assert p["ranged_text"] == "Ranged 5: +2 Attack."
    assert (p["allowance_min"], p["allowance_max"]) == (0, 2)


def test_spot_allowances(profiles):
    assert (profiles["kitsune-kaiken"]["allowance_min"], profiles["kitsune-kaiken"]["allowance_max"]) == (1, 3)
    assert (profiles["tora-kaiken"]["allowance_min"], profiles["tora-kaiken"]["allowance_max"]) == (2, 4)
    assert (profiles["tanchyo-kaiken"]["allowance_min"], profiles["tanchyo-kaiken"]["allowance_max"]) == (0, 2)
    assert (profiles["tanchyo-yajiri"]["allowance_min"], profiles["tanchyo-yajiri"]["allowance_max"]) == (2, 4)
    assert (profiles["ijin-kunoichi"]["allowance_min"], profiles["ijin-kunoichi"]["allowance_max"]) == (1, 3)


def test_spot_yamazaru(profiles):
    assert _stats(profiles["yamazaru-chunin"]) == (4, 4, 4, 20)
    yajiri = profiles["yamazaru-yajiri"]
    assert _stats(yajiri) == (5, 1, 1, 6)
    assert (yajiri["ranged"], yajiri["ranged_attack_bonus"]) == (5, 1)
    assert yajiri["ranged_text"] == "Ranged 5: +1 Attack, Stealthy."
    oni = profiles["yamazaru-oni"]
    assert oni["keywords"] == ["Resilient", "Yamazaru's Tail"]
    assert "Yamazura's Tail" in oni["notes"]
    goku = profiles["yamazaru-son-goku"]
    assert goku["name"] == "Son Goku"
    assert _stats(goku) == (7, 3, 3, 19)
    assert goku["abilities"] == [
        {"name": "Lucky", "text": "Son Goku gets a Luck token at the beginning of each of his activations."}
    ]


def test_spot_kitsune(profiles):
    assert _stats(profiles["kitsune-chunin"]) == (6, 3, 4, 22)
    assert _stats(profiles["kitsune-kunoichi"]) == (7, 1, 2, 8)
    oni = profiles["kitsune-oni"]
    assert _stats(oni) == (5, 4, 3, 19)
    assert oni["choose_abilities"] == 0
    assert [a["name"] for a in oni["abilities"]] == ["Spirit Senses"]
    tamamo = profiles["kitsune-tamamo-no-mae"]
    assert tamamo["name"] == "Tamamo no Mae"
    assert tamamo["koban"] == 14
    assert profiles["kitsune-uzumaki"]["abilities"][0]["name"] == "9 Tails"


def test_spot_heroes(profiles):
    byakko = profiles["tora-byakko"]
    assert byakko["name"] == "Byakko"
    assert _stats(byakko) == (5, 4, 3, 24)
    assert byakko["affinities"] == ["Fire", "Earth"]
    assert byakko["keywords"] == [
        "Close Combat Master",
        "Hero",
        "Precision Strike",
        "Regeneration",
        "Resilient",
        "Tora's Claws",
    ]
    assert byakko["abilities"] == [
        {"name": "Vault", "text": "Byakko may move through spaces occupied by other models."}
    ]
    assert _stats(profiles["ika-mizuchi"]) == (5, 3, 5, 23)
    assert _stats(profiles["ijin-yobuko"]) == (5, 5, 4, 25)
    assert _stats(profiles["ijin-bomechan"]) == (7, 3, 2, 22)
    zenyo = profiles["tanchyo-zenyo-ryu"]
    assert _stats(zenyo) == (6, 4, 2, 21)
    assert (zenyo["ranged"], zenyo["ranged_attack_bonus"]) == (7, 0)
    assert profiles["tanchyo-karura"]["movement"] == 8


def test_spot_tanchyo_and_ijin(profiles):
    chunin = profiles["tanchyo-chunin"]
    assert _stats(chunin) == (6, 4, 3, 23)
    assert (chunin["ranged"], chunin["ranged_attack_bonus"], chunin["ranged_text"]) == (6, 0, "Ranged 6.")
    assert _stats(profiles["tanchyo-madoushi"]) == (6, 3, 2, 16)
    ijin_yajiri = profiles["ijin-yajiri"]
    assert (ijin_yajiri["ranged"], ijin_yajiri["ranged_attack_bonus"]) == (6, 2)
    assert _stats(profiles["ijin-oni"]) == (4, 5, 2, 18)
    assert profiles["ijin-kunoichi"]["keywords"] == ["Backstab", "Nimble"]


def test_spot_ronin(ronin):
    mp = ronin["moon-princess"]
    assert mp["name"] == "Moon Princess"
    assert (mp["movement"], mp["attack"], mp["defense"]) == (7, 2, 2)
    assert (mp["koban"], mp["upkeep"]) == (18, 6)
    assert sorted(mp["affinities"]) == sorted(ELEMENTS)
    assert "Resilient" in mp["keywords"]
    assert "Spirit, Air, or Earth" in mp["notes"]
    benkei = ronin["benkei"]
    assert (benkei["movement"], benkei["attack"], benkei["defense"]) == (3, 3, 4)
    assert (benkei["koban"], benkei["upkeep"]) == (16, 5)
    assert benkei["abilities"] == [
        {"name": "Immovable", "text": "If Benkei has not activated during the round, he gets +2 Defense."}
    ]
    assert (ronin["inu-clan-kaiken"]["koban"], ronin["inu-clan-kaiken"]["upkeep"]) == (13, 3)
    assert (ronin["ondori-clan-kaiken"]["koban"], ronin["ondori-clan-kaiken"]["upkeep"]) == (14, 3)
    assert (ronin["yagyu-jubei"]["koban"], ronin["yagyu-jubei"]["upkeep"]) == (24, 6)
    assert ronin["kappa"]["affinities"] == ["Earth", "Void", "Water"]
    moch = ronin["mochizuki"]
    assert (moch["ranged"], moch["ranged_attack_bonus"]) == (5, 2)
    assert [a["name"] for a in ronin["komuso"]["abilities"]] == ["Resolute Melody", "Elixir of Courage"]
    assert ronin["tengu"]["keywords"] == ["Combined Attack", "Ronin", "Tanchyo's Wings"]


def test_spot_keywords(keywords):
    assert keywords["Close Combat Master"]["category"] == "General"
    assert keywords["Yamazaru's Tail"]["category"] == "Earth"
    assert keywords["Tanchyo's Wings"]["category"] == "Air"
    assert keywords["Kitsune's Bite"]["category"] == "Spirit"
    assert keywords["Ika's Tentacles"]["category"] == "Water"
    assert keywords["Ijin's Horns"]["category"] == "Void"
    assert keywords["Tora's Claws"]["category"] == "Fire"
    assert {k for k, v in keywords.items() if v["category"] == "Unique"} == {"Hero", "Resilient", "Ronin"}
    assert keywords["Backstab"]["text"] == (
        "A model with Backstab gets +2 Attack, instead of +1, when making a back strike."
    )


def test_spot_challenges(challenges):
    brawl = challenges["brawl"]
    assert (brawl["ninjas_allowed"], brawl["rounds"]) == (7, 6)
    assert brawl["setup"] == ""
    assert [(a["key"], a["xp"]) for a in brawl["xp_awards"]] == [("injure_enemy", 1)]
    assert (challenges["assassination"]["ninjas_allowed"], challenges["assassination"]["rounds"]) == (6, 7)
    assert (
        challenges["intercept-the-messenger"]["ninjas_allowed"],
        challenges["intercept-the-messenger"]["rounds"],
    ) == (7, 9)
    assert (challenges["champion"]["ninjas_allowed"], challenges["champion"]["rounds"]) == (7, 8)
    assert (challenges["king-of-the-hill"]["ninjas_allowed"], challenges["king-of-the-hill"]["rounds"]) == (6, 8)
    assert (challenges["infiltration"]["ninjas_allowed"], challenges["infiltration"]["rounds"]) == (6, 8)
    assert (challenges["search"]["ninjas_allowed"], challenges["search"]["rounds"]) == (7, 9)
    assert (challenges["capture-the-medal"]["ninjas_allowed"], challenges["capture-the-medal"]["rounds"]) == (7, 9)
    assert [(a["key"], a["xp"]) for a in challenges["capture-the-medal"]["xp_awards"]] == [
        ("pick_up_medal", 1),
        ("return_own_medal", 1),
        ("capture_enemy_medal", 3),
    ]
    assert [(a["key"], a["xp"]) for a in challenges["intercept-the-messenger"]["xp_awards"]] == [
        ("injure_messenger", 2),
        ("messenger_escapes", 2),
    ]
    assert [(a["key"], a["xp"]) for a in challenges["search"]["xp_awards"]] == [
        ("check_crate", 1),
        ("find_objective", 2),
    ]
    assert [(a["key"], a["xp"]) for a in challenges["infiltration"]["xp_awards"]] == [
        ("pick_up_medal", 1),
        ("medal_to_deployment", 3),
    ]
    assert challenges["assassination"]["xp_awards"][0]["key"] == "injure_vip"
    assert challenges["champion"]["xp_awards"][0]["key"] == "chosen_champion"
    assert challenges["king-of-the-hill"]["xp_awards"][0]["key"] == "team_scores_in_area"
    assert challenges["intercept-the-messenger"]["setup"] == "All small-base models start the game in Stealth."


def test_spot_status_effects(catalog):
    effects = {s["name"]: s["text"] for s in catalog["status_effects"]}
    assert effects["Stun"].startswith("A Stunned model cannot assist. When a model gets three Stun tokens")
    assert effects["Slow"] == (
        "At the beginning of a Slowed model's activation, remove one Slow token. During that "
        "activation, the model may only move half of its movement, rounded up."
    )


def test_spot_samurai_sentry(catalog):
    sentry = catalog["samurai_sentry"]
    assert sentry["name"] == "Samurai Sentry"
    assert (sentry["movement"], sentry["attack"], sentry["defense"]) == (5, 3, 3)
    assert "two Delay tokens" in sentry["rules"]


def test_spot_xp_levels(catalog):
    assert [(lv["name"], lv["min_xp"], lv["max_xp"]) for lv in catalog["tables"]["xp_levels"]] == [
        ("New Recruit", 0, 7),
        ("Experienced", 8, 21),
        ("Veteran", 22, 42),
        ("Shinobi", 43, 70),
        ("Clan Champion", 71, 105),
        ("Infamous", 106, 245),
        ("Legendary", 246, None),
    ]


def test_spot_advancement(catalog):
    assert [(r["face"], r["result"], r["doubles"]) for r in catalog["tables"]["advancement"]] == [
        ("Spirit", "New Keyword", "+1 Defense"),
        ("Water", "New Keyword", "+1 Defense"),
        ("Earth", "New Keyword", "Gain an additional Affinity"),
        ("Air", "New Keyword", "+1 Movement"),
        ("Fire", "New Keyword", "+1 Attack"),
        ("Void", "New Keyword", "+1 Attack"),
    ]


def test_spot_downtime(catalog):
    assert [(r["face"], r["effect"]) for r in catalog["tables"]["downtime"]] == [
        (
            "Spirit",
            "Another model that ended the game in the Healing House does not need to roll on "
            "this table, and may play as normal in the following game.",
        ),
        ("Void", "Cannot play in the next two games."),
        ("Earth", "No effect."),
        ("Air", "Starts the next game in the Healing House."),
        ("Water", "Gets 1 XP."),
        ("Fire", "Cannot play in the next game."),
    ]


def test_spot_revenue(catalog):
    assert catalog["tables"]["revenue"] == [
        {"result": "win", "label": "Team won the game", "koban": 10},
        {"result": "loss", "label": "Team lost the game", "koban": 6},
    ]


def test_spot_random_challenge(catalog):
    rc = catalog["tables"]["random_challenge"]
    assert rc["first_die"] == {"Void": 1, "Fire": 1, "Air": 1, "Earth": 2, "Water": 2, "Spirit": 2}
    assert [(r["face"], r["column_1"], r["column_2"]) for r in rc["second_die"]] == [
        ("Void", "Player 1 chooses challenge", "Player 1 chooses challenge"),
        ("Fire", "Assassination", "Infiltration"),
        ("Air", "Intercept the Messenger", "Brawl"),
        ("Earth", "Champion", "Search"),
        ("Water", "King of the Hill", "Capture the Medal"),
        ("Spirit", "Player 2 chooses challenge", "Player 2 chooses challenge"),
    ]


def test_random_challenge_cells_name_real_challenges(catalog):
    names = {c["name"] for c in catalog["challenges"]}
    cells = set()
    for row in catalog["tables"]["random_challenge"]["second_die"]:
        cells.update((row["column_1"], row["column_2"]))
    cells -= {"Player 1 chooses challenge", "Player 2 chooses challenge"}
    assert cells == names
