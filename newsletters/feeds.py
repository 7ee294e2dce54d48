"""An Atom feed of each league's published newsletters (full content, as published).

Every link in it is on ``SITE_URL``'s host (common/site.py), never the request's, as in the emails:
the feed's, each entry's and those in the content (made absolute)."""

from __future__ import annotations

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from common.site import absolute_url, site_url
from newsletters import selectors
from newsletters.services import absolutize_links

FEED_SIZE = 20


class LeagueNewsletterFeed(Feed):
    feed_type = Atom1Feed

    def get_object(self, request, league_slug: str):
        return selectors.league_by_slug(league_slug)

    def title(self, league) -> str:
        return f"{league.name} newsletters"

    def subtitle(self, league) -> str:
        return f"The ninja master's newsletters of {league.name}, a Ninja All-Stars league."

    def link(self, league) -> str:
        return absolute_url(reverse("newsletters:list", kwargs={"league_slug": league.slug}))

    def feed_url(self, league) -> str:
        return absolute_url(reverse("newsletters:feed", kwargs={"league_slug": league.slug}))

    def author_name(self, league) -> str:
        return league.master.username

    def items(self, league):
        return selectors.published(league).defer(None).select_related("league", "league__master")[:FEED_SIZE]

    def item_title(self, item) -> str:
        return item.title

    def item_description(self, item) -> str:
        return absolutize_links(item.editorial_html + item.content_html, site_url())

    def item_link(self, item) -> str:
        return absolute_url(item.get_absolute_url())

    def item_guid(self, item) -> str:
        return f"tag:moonlight-league,{item.published_at:%Y-%m-%d}:newsletter/{item.league.slug}/{item.period_key}"

    item_guid_is_permalink = False

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.published_at

    def item_author_name(self, item) -> str:
        return item.league.master.username
