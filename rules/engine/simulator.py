"""The match simulator's former single module, kept as the import path the app and the tests use.

The simulator lives in :mod:`rules.engine.simulation` (a package: board, scoring, targeting
policy, one class per challenge, the turn loop); this module re-exports its public API.
"""

from .simulation import *  # noqa: F403
from .simulation import __all__  # noqa: F401
