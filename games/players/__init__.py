"""The Django machinery any game whose entrants are players shares (issue 28), naming no game:
the generic record checks (``results``: ``SideResult``, ``is_record``, ``raise_problems``), the
record a confirmed match was applied from (``records``), the statistics' rows, rates and one-query
read of a league's records (``statistics``), the API's pair field (``api``), the simulate panel's
words and the hooks that read the season's rules (``sites``), and the strength-model simulation
(``simulation``: the jobs' batches and their ratings; each game draws its own record through its
``Game.strength_record``). Each game's own forms, results, statistics, newsletter report, API
document and simulated record are in its package
(``games/ninjutsu/``, ``games/kage_masters/``), whose ``site.py`` builds its
:class:`games.protocol.Game` from them and from this package. This package sits above the core
apps (it imports their models and services); no core app imports it
(tests/test_import_direction.py)."""
