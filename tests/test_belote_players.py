"""Belote heuristic (issue 10): points go on the partner's trick only when nothing unseen
can take it. Pinned by a hand-built position and by duplicate play against the former
rule (``heuristic:careful_follow=false`` at one team's seats: per-seat policy values, so
one team plays each rule on the same deals)."""

from __future__ import annotations

import numpy as np

import simlab
from simlab.engine import stats
from simlab.games import belote as B
from simlab.games import get_game
from simlab.games.belote.players import load_on_partner
from simlab.players.duel import duplicate

SPADES, HEARTS = 0, 1
TB = B.tables(B.BeloteKnobs()).kernel_args()


def mask(*labels: str) -> np.uint64:
    m = 0
    for x in labels:
        m |= 1 << B.DECK.index(x)
    return np.uint64(m)


def load(hand: tuple[str, ...], win: str, trump: int, gone: tuple[str, ...]) -> str:
    suit_of, suit_mask, _, _, points, above, cheap, rich, _ = TB
    t = trump + 1
    unseen = np.uint64((1 << 32) - 1) & ~mask(*gone) & ~mask(*hand) & ~mask(win)
    c = load_on_partner(mask(*hand), B.DECK.index(win), trump, unseen, suit_of, suit_mask,
                        above[t], points[t], cheap[t], rich[t], 10)
    return B.DECK.labels[c]


def test_ace_kept_off_a_trick_an_unseen_card_can_take():
    # Hearts trump. Partner leads K♠; the A♠ and 10♠ are unseen, so an opponent may
    # still take the trick: keep the A♦ and give the Q♦ (at most a King or Queen).
    assert load(("A♦", "Q♦", "7♣"), "K♠", HEARTS, gone=()) == "Q♦"
    # the same trick once every stronger spade and every trump has gone: load the ace
    gone = ("A♠", "10♠", *[f"{r}♥" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")])
    assert load(("A♦", "Q♦", "7♣"), "K♠", HEARTS, gone=gone) == "A♦"
    # a master trump of the partner: nothing beats it, load the richest plain card
    assert load(("10♦", "Q♦", "7♣"), "J♥", HEARTS, gone=()) == "10♦"
    # only 10s and aces besides a trump: the cheapest card, never a 10 on an unsure trick
    assert load(("10♦", "A♣", "7♥"), "K♠", HEARTS, gone=()) == "7♥"


def test_careful_loading_beats_the_former_rule_in_duplicate():
    n = 30_000
    old = "heuristic:careful_follow=false"

    def team0_minus_team1(policies: str) -> np.ndarray:
        f = simlab.simulate("belote", n, seed=5, policies=policies)
        return (f["score_s0"].to_numpy() - f["score_s1"].to_numpy()).astype(float)

    # seats 0 and 2 play the new rule, then seats 1 and 3, on the same deals
    edge = (team0_minus_team1(f"heuristic,{old},heuristic,{old}")
            - team0_minus_team1(f"{old},heuristic,{old},heuristic")) / 2
    est = stats.mean(edge)
    assert est.lo > 0, est.format()
    # and the check can fail: the same rule on both sides gives exactly 0
    same = (team0_minus_team1("heuristic") - team0_minus_team1("heuristic")) / 2
    assert not same.any()


def lead(hand: tuple[str, ...], partner_led: tuple[int, ...], trump: int,
         gone: tuple[str, ...] = ()) -> str:
    from simlab.games.belote.players import lead_heuristic, lead_to_partner

    suit_of, suit_mask, _, strength, points, above, cheap, rich, _ = TB
    t = trump + 1
    h = mask(*hand)
    c = lead_heuristic(h, False, mask(*gone), trump, suit_mask, above[t], strength[t],
                       cheap[t], rich[t])
    led = sum(1 << s for s in partner_led)
    return B.DECK.labels[lead_to_partner(c, h, led, mask(*gone), trump, suit_mask, above[t],
                                         cheap[t])]


def test_defender_leads_back_to_his_partners_suit():
    # Hearts trump; the partner led spades. With no master to cash, the defender leads his
    # cheapest spade, not his cheapest card (the 7♦, which the former rule led).
    assert lead(("7♦", "9♠", "K♣"), partner_led=(SPADES,), trump=HEARTS) == "9♠"
    # a master to cash goes first (the A♣)
    assert lead(("7♦", "9♠", "A♣"), partner_led=(SPADES,), trump=HEARTS) == "A♣"
    # a partner who led only trumps gives no plain suit: the cheapest card as before
    assert lead(("7♦", "9♠", "K♣"), partner_led=(HEARTS,), trump=HEARTS) == "7♦"


def test_leading_back_beats_the_former_lead_in_duplicate():
    old = "heuristic:lead_partner_suit=false"
    r = duplicate(get_game("belote"), "heuristic", old, n=60_000, seed=77)
    assert r.lo > 0, r.format()
