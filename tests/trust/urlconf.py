"""Every named URL pattern of the site, found by walking the URLconf."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver


@dataclass(frozen=True)
class NamedURL:
    name: str  # "namespace:name"
    route: str  # the full route, for messages
    callback: object
    converters: tuple = ()  # (argument name, converter) pairs of the whole route


def named_urls(
    resolver: URLResolver | None = None, namespace: str = "", prefix: str = "", converters: tuple = ()
) -> list[NamedURL]:
    resolver = resolver or get_resolver()
    found: list[NamedURL] = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            ns = entry.namespace
            child_ns = f"{namespace}:{ns}" if namespace and ns else (ns or namespace)
            found += named_urls(
                entry,
                child_ns,
                prefix + str(entry.pattern),
                converters + tuple(getattr(entry.pattern, "converters", {}).items()),
            )
        elif isinstance(entry, URLPattern) and entry.name:
            name = f"{namespace}:{entry.name}" if namespace else entry.name
            found.append(
                NamedURL(
                    name=name,
                    route=prefix + str(entry.pattern),
                    callback=entry.callback,
                    converters=converters + tuple(getattr(entry.pattern, "converters", {}).items()),
                )
            )
    # A name defined twice (e.g. by two routes) counts once: reverse() finds the last.
    unique: dict[str, NamedURL] = {}
    for url in found:
        unique.setdefault(url.name, url)
    return sorted(unique.values(), key=lambda u: u.name)
