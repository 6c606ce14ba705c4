"""Démons punisseurs balance questions (catalogue "Balance questions" 1-6) as metrics and
the findings that open the report; the decision kinds of the health checks; the hand
strength measure.

May import: ``simlab.engine.*``, this game's ``rules``.
"""

from __future__ import annotations

from simlab.engine.questions import MetricDef

SECTION = "Démons punisseurs questions"


def balance_metrics(frame, knobs, level: str) -> list[MetricDef]:
    return []


HAND_STRENGTH_TEXT = "permanent Démons count 2, other Jacks, Queens and 7s 1"
PERMANENT_LABELS = ("K♥", "6♦", "7♦", "7♣", "J♣", "Q♣")


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(2 if c in PERMANENT_LABELS else 1 if c[:-1] in ("J", "Q", "7") else 0
                     for c in hand))


def decisions(knobs, columns: list[str]) -> list[tuple]:
    return []


def decision_notes(knobs) -> dict[str, str]:
    return {}
