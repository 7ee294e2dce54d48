"""The Django side the two players' games of the site share (Ninjutsu, Kage Masters): their
result records, forms, simulation by the strength model, statistics and newsletter reports, moved
here whole from matches/game_*.py, stats/games.py and newsletters/content.py (issue 28). Each
game's ``site.py`` (``games/ninjutsu/site.py``, ``games/kage_masters/site.py``) builds its
:class:`games.protocol.Game` from them. This package sits above the core apps (it imports their
models and services); no core app imports it (tests/test_import_direction.py)."""
