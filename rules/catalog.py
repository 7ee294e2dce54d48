"""Load the rules catalog (rules/data/catalog.json) into the database, idempotently.

Used by the data migration (with historical models) and by `manage.py load_catalog`.
Rows are matched on natural keys (slug or name) and updated in place, so loading twice never
duplicates anything.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.db import transaction

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


@lru_cache(maxsize=1)
def catalog_data() -> dict[str, Any]:
    with CATALOG_PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


def _models(apps=None):
    if apps is None:
        from django.apps import apps as global_apps

        apps = global_apps
    names = [
        "Clan",
        "Keyword",
        "Profile",
        "SpecialAbility",
        "Challenge",
        "ChallengeXpAward",
        "StatusEffect",
        "SentryProfile",
        "XpLevel",
        "AdvancementRow",
        "DowntimeRow",
        "RevenueRow",
        "RandomChallengeRow",
        "RandomChallengeColumn",
    ]
    return {name: apps.get_model("rules", name) for name in names}


def load_catalog(apps=None) -> dict[str, int]:
    """Create or update every catalog row from the JSON file. Returns counts loaded."""
    data = catalog_data()
    m = _models(apps)
    with transaction.atomic():
        keywords: dict[str, Any] = {}
        for order, kw in enumerate(data["keywords"]):
            obj, _ = m["Keyword"].objects.update_or_create(
                name=kw["name"], defaults={"category": kw["category"], "text": kw["text"], "order": order}
            )
            keywords[kw["name"]] = obj

        def load_profile(entry: dict[str, Any], *, clan, kind: str, order: int) -> None:
            profile, _ = m["Profile"].objects.update_or_create(
                slug=entry["slug"],
                defaults={
                    "clan": clan,
                    "name": entry["name"],
                    "kind": kind,
                    "movement": entry["movement"],
                    "attack": entry["attack"],
                    "defense": entry["defense"],
                    "koban": entry["koban"],
                    "upkeep": entry.get("upkeep"),
                    "affinities": entry["affinities"],
                    "allowance_min": entry.get("allowance_min"),
                    "allowance_max": entry.get("allowance_max"),
                    "ranged": entry.get("ranged"),
                    "ranged_attack_bonus": entry.get("ranged_attack_bonus"),
                    "ranged_text": entry.get("ranged_text", ""),
                    "choose_abilities": entry.get("choose_abilities", 0),
                    "notes": entry.get("notes", ""),
                    "order": order,
                },
            )
            profile.keywords.set([keywords[name] for name in entry["keywords"]])
            names = []
            for a_order, ability in enumerate(entry.get("abilities", [])):
                m["SpecialAbility"].objects.update_or_create(
                    profile=profile, name=ability["name"], defaults={"text": ability["text"], "order": a_order}
                )
                names.append(ability["name"])
            m["SpecialAbility"].objects.filter(profile=profile).exclude(name__in=names).delete()

        for c_order, clan_data in enumerate(data["clans"]):
            clan, _ = m["Clan"].objects.update_or_create(
                slug=clan_data["slug"],
                defaults={
                    "name": clan_data["name"],
                    "element": clan_data["element"],
                    "affinity_note": clan_data.get("affinity_note", ""),
                    "order": c_order,
                },
            )
            for p_order, entry in enumerate(clan_data["profiles"]):
                load_profile(entry, clan=clan, kind=entry["kind"], order=p_order)
        for r_order, entry in enumerate(data["ronin"]):
            load_profile(entry, clan=None, kind="ronin", order=r_order)

        for ch_order, ch in enumerate(data["challenges"]):
            challenge, _ = m["Challenge"].objects.update_or_create(
                slug=ch["slug"],
                defaults={
                    "name": ch["name"],
                    "summary": ch.get("summary", ""),
                    "ninjas_allowed": ch["ninjas_allowed"],
                    "rounds": ch["rounds"],
                    "setup": ch.get("setup", ""),
                    "special_rules": ch.get("special_rules", ""),
                    "notes": ch.get("notes", ""),
                    "order": ch_order,
                },
            )
            keys = []
            for a_order, award in enumerate(ch.get("xp_awards", [])):
                m["ChallengeXpAward"].objects.update_or_create(
                    challenge=challenge,
                    key=award["key"],
                    defaults={
                        "feat": award["feat"],
                        "xp": award["xp"],
                        "text": award.get("text", ""),
                        "order": a_order,
                    },
                )
                keys.append(award["key"])
            m["ChallengeXpAward"].objects.filter(challenge=challenge).exclude(key__in=keys).delete()

        for s_order, effect in enumerate(data["status_effects"]):
            m["StatusEffect"].objects.update_or_create(
                name=effect["name"], defaults={"text": effect["text"], "order": s_order}
            )

        sentry = data["samurai_sentry"]
        m["SentryProfile"].objects.update_or_create(
            name=sentry["name"],
            defaults={
                "movement": sentry["movement"],
                "attack": sentry["attack"],
                "defense": sentry["defense"],
                "affinity_note": sentry.get("affinity_note", ""),
                "rules": sentry.get("rules", ""),
            },
        )

        tables = data["tables"]
        for row in tables["xp_levels"]:
            m["XpLevel"].objects.update_or_create(
                level=row["level"], defaults={"name": row["name"], "min_xp": row["min_xp"], "max_xp": row["max_xp"]}
            )
        for order, row in enumerate(tables["advancement"]):
            m["AdvancementRow"].objects.update_or_create(
                face=row["face"], defaults={"result": row["result"], "doubles": row["doubles"], "order": order}
            )
        for order, row in enumerate(tables["downtime"]):
            m["DowntimeRow"].objects.update_or_create(
                face=row["face"], defaults={"effect": row["effect"], "order": order}
            )
        for order, row in enumerate(tables["revenue"]):
            m["RevenueRow"].objects.update_or_create(
                result=row["result"], defaults={"label": row["label"], "koban": row["koban"], "order": order}
            )
        rc = tables["random_challenge"]
        for face, column in rc["first_die"].items():
            m["RandomChallengeColumn"].objects.update_or_create(face=face, defaults={"column": column})
        for order, row in enumerate(rc["second_die"]):
            m["RandomChallengeRow"].objects.update_or_create(
                face=row["face"], defaults={"column_1": row["column_1"], "column_2": row["column_2"], "order": order}
            )

    return {
        "clans": m["Clan"].objects.count(),
        "profiles": m["Profile"].objects.count(),
        "keywords": m["Keyword"].objects.count(),
        "challenges": m["Challenge"].objects.count(),
    }


def ensure_catalog() -> None:
    """Load the catalog unless it is already there (cheap check); for tests after a DB flush."""
    from rules.models import Clan, Profile

    expected_profiles = sum(len(c["profiles"]) for c in catalog_data()["clans"]) + len(catalog_data()["ronin"])
    if Clan.objects.count() == len(catalog_data()["clans"]) and Profile.objects.count() == expected_profiles:
        return
    load_catalog()
