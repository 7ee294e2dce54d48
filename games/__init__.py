"""One package a game (docs/architecture.md, "A game is one package"): its plain description
(``GAME``), its pure engine (``engine/``) and its Django side (``site.py``, registered through
``games.protocol``). The pure parts (base, protocol, registry, tables, the engines) import no app;
the Django sides sit above the core apps (tests/test_import_direction.py)."""
