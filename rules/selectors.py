from __future__ import annotations

from rules.models import Challenge, Clan, Keyword, Profile, StatusEffect


def catalog_counts() -> dict[str, int]:
    return {
        "clans": Clan.objects.count(),
        "clan_profiles": Profile.objects.exclude(kind=Profile.Kind.RONIN).count(),
        "ronin": Profile.objects.filter(kind=Profile.Kind.RONIN).count(),
        "keywords": Keyword.objects.count(),
        "challenges": Challenge.objects.count(),
        "status_effects": StatusEffect.objects.count(),
    }
