"""Pure-Python rules engine for Ninja All-Stars (standard library only).

Nothing in this package may import Django or any third-party module: the
Django app in :mod:`rules` wraps it, never the other way round.  Every
random function takes ``rng: random.Random`` as a keyword-only argument
and records every die face it rolls, so results can be persisted and
replayed.

Modules:

* :mod:`.dice` -- the six elements, opposition pairs, rolling, rerolls.
* :mod:`.affinity` -- affinity tests and opposed affinity tests.
* :mod:`.combat` -- dice pools, eliminations, choosing the combat result.
* :mod:`.odds` -- exact combat-result probabilities by enumeration.
* :mod:`.league` -- XP levels, team rating, underdog bonuses, revenue,
  downtime, advancement rolls, random challenge generator, match XP.
* :mod:`.records` -- the match record, the kick-off snapshot of each side,
  and every rule a result must satisfy.
* :mod:`.postgame` -- the post-game sequence as one function.
* :mod:`.standings` -- tie-breakers and the league table's order.
* :mod:`.recruitment` -- who a team may recruit; allowances.
* :mod:`.challenges` -- Stealth at set-up, the Brawl's winning score.
* :mod:`.keywords` -- one attack with every keyword and special ability.
* :mod:`.simulation` -- a whole match, played by a stated policy (board,
  scoring, targeting policy, one class per challenge, the turn loop);
  :mod:`.simulator` re-exports it under its former name.
"""
