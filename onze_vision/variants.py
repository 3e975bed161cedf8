"""The five Onze variants as data.

Every rule that differs between variants is a field of :class:`Variant`, and the
variants are the entries of one table, :data:`VARIANTS`. The rest of the engine
reads those fields and never tests a variant's name, so a sixth variant is one more
entry here; ``docs/extending.md`` says how to add one (the entry, its column in
``docs/rules.md`` §5, its rows in ``tests/test_variants.py``'s tables). The command line
and the score sheet read :data:`VARIANTS` and need no change.

    >>> v = get_variant("once")
    >>> str(v.contract(6)), v.cards_dealt(7), v.card_value(Card.from_code("AH"))
    ('two runs + one set', 13, 30)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from onze_vision.cards import Card
from onze_vision.messages import quoted

__all__ = [
    "CONTRACTS",
    "HANDS",
    "VARIANTS",
    "Contract",
    "ImpossibleHandError",
    "InvalidContractError",
    "InvalidPlayerCountError",
    "InvalidRoundError",
    "InvalidVariantError",
    "MeldKind",
    "NoSplashError",
    "UnknownVariantError",
    "Variant",
    "get_variant",
]

MeldKind = Literal["set", "run"]
HANDS: range = range(1, 8)
SET_MIN = 3  # a set is 3 or more cards of one rank
RUN_MIN = 4  # a run is 4 or more consecutive ranks
CARDS_PER_DECK = 52  # without its Jokers
# A hand needs a card turned up to start the discard pile and at least one left to draw.
UNDEALT_MIN = 2
#: The rules common to every variant, in the words the rules page and ``variants`` say.
SETS_TEXT = "3 or more cards of one rank, suits free (two identical cards may share a set)"
SCORING_TEXT = ("when someone goes out, each other player scores the cards left in hand (values below) "
                "and the one who went out scores 0; after hand 7 the lowest total wins")
_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


class UnknownVariantError(ValueError):
    """A variant name that is not in :data:`VARIANTS`; names the known ones."""

    def __init__(self, name: object) -> None:
        self.name = name
        super().__init__(
            f"unknown variant {quoted(name)}: choose one of {', '.join(VARIANTS)}"
        )


class InvalidRoundError(ValueError):
    """A hand (round) number outside 1-7."""

    def __init__(self, hand: object) -> None:
        self.hand = hand
        if isinstance(hand, int) and not isinstance(hand, bool):
            super().__init__(f"hand {quoted(hand)} does not exist: Onze is played over hands 1 to 7")
        else:   # "3" is hand 3 to a reader: saying it does not exist would contradict itself
            super().__init__(f"a hand is a whole number from 1 to 7, not {quoted(hand)} ({type(hand).__name__})")


class InvalidPlayerCountError(ValueError):
    """A number of players the variant is not played with."""

    def __init__(self, variant: Variant, players: object) -> None:
        self.players = players
        super().__init__(
            f"{variant.name} is played by {variant.min_players} to {variant.max_players} "
            f"players, not {quoted(players)}"
        )


class ImpossibleHandError(ValueError):
    """Cards the game's decks cannot hold (often a misrecognised card); names the card."""

    def __init__(self, message: str, card: Card | None = None) -> None:
        self.card = card
        super().__init__(message)


class InvalidVariantError(ValueError):
    """A :class:`Variant` entry that cannot describe a game of hands 1-7 (a contributor's slip,
    caught when the table is read rather than in the middle of a game)."""


class NoSplashError(ValueError):
    """A splash asked for in a variant that has no splash rule."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(
            f"{variant.name} has no splash rule: only "
            f"{', '.join(v.name for v in VARIANTS.values() if v.has_splash)} doubles scores on a splash"
        )


def _count_words(count: int, noun: str) -> str:
    word = _NUMBER_WORDS.get(count, str(count))
    return f"{word} {noun}{'' if count == 1 else 's'}"


class InvalidContractError(ValueError):
    """A contract of melds other than sets and runs, or of fewer than none; quotes it."""


@dataclass(frozen=True)
class Contract:
    """The melds a hand asks for, in the order the rules state them.

    Attributes:
        melds: e.g. ``("run", "run", "set")`` for "two runs + one set".
    """

    melds: tuple[MeldKind, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.melds, tuple) or any(kind not in ("set", "run") for kind in self.melds):
            raise InvalidContractError(f"a contract is a tuple of 'set' and 'run', not {quoted(self.melds)}")

    @classmethod
    def of(cls, sets: int = 0, runs: int = 0) -> Contract:
        """A contract of ``sets`` sets then ``runs`` runs.

        Raises:
            InvalidContractError: a count that is not a whole number of none or more.
        """
        for what, count in (("sets", sets), ("runs", runs)):
            if type(count) is not int or count < 0:
                raise InvalidContractError(f"a contract has a whole number of {what}, none or more, "
                                           f"not {quoted(count)}")
        set_kind: MeldKind = "set"
        run_kind: MeldKind = "run"
        return cls((set_kind,) * sets + (run_kind,) * runs)

    @property
    def sets(self) -> int:
        """How many sets."""
        return self.melds.count("set")

    @property
    def runs(self) -> int:
        """How many runs."""
        return self.melds.count("run")

    @property
    def min_cards(self) -> int:
        """The fewest cards that can make this contract (3 per set, 4 per run)."""
        return SET_MIN * self.sets + RUN_MIN * self.runs

    def __str__(self) -> str:
        if not self.melds:
            return "no meld"
        # Keep the rules' wording: "two runs + one set" for hand 6, sets first elsewhere.
        kinds = list(dict.fromkeys(self.melds))
        return " + ".join(_count_words(self.melds.count(kind), kind) for kind in kinds)


# The hand-by-hand contracts, the same in all five texts.
CONTRACTS: tuple[Contract, ...] = (
    Contract(("set", "set")),
    Contract(("set", "run")),
    Contract(("run", "run")),
    Contract(("set", "set", "set")),
    Contract(("set", "set", "run")),
    Contract(("run", "run", "set")),
    Contract(("run", "run", "run")),
)
ELEVEN_THEN_THIRTEEN: tuple[int, ...] = (11, 11, 11, 11, 11, 11, 13)


@dataclass(frozen=True)
class Variant:
    """One variant's rules; see ``docs/rules.md`` for the prose.

    Attributes:
        name: the short name used on the command line, e.g. ``"once"``.
        title: a longer name for people, ``"Name (an aside)"``: the score sheet's forms
            list the name, and its one-line summary leads with the aside.
        source: the seed text the rules come from.
        min_players: fewest players.
        max_players: most players.
        decks_by_players: ``(up to this many players, decks)`` pairs, ascending.
        jokers_per_deck: Jokers shuffled in per deck (0: played without Jokers).
        deal: cards dealt in hands 1 to 7.
        joker_value: points of a Joker left in hand (``None``: no Jokers).
        red_ace_value: points of an Ace of hearts or diamonds.
        black_ace_value: points of an Ace of spades or clubs.
        face_value: points of J, Q, K (2-10 count their face value).
        jokers_wild: Jokers are wild.
        red_aces_wild: red Aces are wild (always, even in a set of Aces).
        min_naturals: fewest natural (not wild) cards in any meld.
        max_set_wilds: most wild cards in one set (``None``: no limit).
        wilds_may_touch: two wild cards may sit side by side in a run.
        runs_same_suit: a run is of one suit (else suits are free).
        ace_low: an Ace may start a run (A 2 3 4).
        ace_high: an Ace may end a run (J Q K A).
        exact_melds: at go-down sets have exactly 3 cards and runs exactly 4.
        has_splash: going down and out in one turn doubles the others' scores.
        splash_hands: hands where one may only go down by splashing (always doubled).
        contracts: the contract of hands 1 to 7.
        notes: rules the engine does not need (swapping wilds on the table…), for people.
    """

    name: str
    title: str
    source: str
    min_players: int
    max_players: int
    decks_by_players: tuple[tuple[int, int], ...]
    jokers_per_deck: int
    deal: tuple[int, ...]
    joker_value: int | None
    red_ace_value: int
    black_ace_value: int
    jokers_wild: bool
    red_aces_wild: bool
    min_naturals: int
    max_set_wilds: int | None
    wilds_may_touch: bool
    runs_same_suit: bool
    ace_low: bool
    ace_high: bool
    exact_melds: bool
    has_splash: bool = False
    splash_hands: tuple[int, ...] = ()
    face_value: int = 10
    contracts: tuple[Contract, ...] = CONTRACTS
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        # A contract list of 9 would leave two unplayed without a word; one of 5 would fail
        # in hand 6 of a real game.
        for what, values in (("deal", self.deal), ("contracts", self.contracts)):
            if len(values) != len(HANDS):
                raise InvalidVariantError(f"{self.name}: {what} gives {len(values)} hands; a game has "
                                          f"{len(HANDS)} (hands 1-7), one entry each")
        if not 1 <= self.min_players <= self.max_players:
            raise InvalidVariantError(f"{self.name}: {self.min_players}-{self.max_players} players is no range")
        if not self.decks_by_players or self.decks_by_players[-1][0] < self.max_players:
            raise InvalidVariantError(f"{self.name}: decks_by_players does not reach {self.max_players} players")
        if any(hand not in HANDS for hand in self.splash_hands):
            raise InvalidVariantError(f"{self.name}: splash_hands {self.splash_hands} names a hand outside 1-7")

    # -- players and decks -------------------------------------------------
    def check_players(self, players: int) -> int:
        """Return ``players`` if the variant is played by that many, else raise.

        Raises:
            InvalidPlayerCountError: outside ``min_players``-``max_players``.
        """
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise InvalidPlayerCountError(self, players)
        return players

    def decks_for(self, players: int) -> int:
        """Decks shuffled together for ``players`` players."""
        self.check_players(players)
        for up_to, decks in self.decks_by_players:
            if players <= up_to:
                return decks
        raise AssertionError(f"{self.name}: decks_by_players does not reach {players}")

    def jokers_for(self, players: int) -> int:
        """Jokers in the shuffled decks for ``players`` players."""
        return self.decks_for(players) * self.jokers_per_deck

    @property
    def max_decks(self) -> int:
        """The most decks the variant is ever played with."""
        return max(decks for _, decks in self.decks_by_players)

    @property
    def uses_jokers(self) -> bool:
        """True when Jokers are shuffled in."""
        return self.jokers_per_deck > 0

    # -- hands -----------------------------------------------------------
    def _hand_index(self, hand: int) -> int:
        if not isinstance(hand, int) or isinstance(hand, bool) or hand not in HANDS:
            raise InvalidRoundError(hand)
        return hand - 1

    def cards_dealt(self, hand: int) -> int:
        """Cards dealt to each player in ``hand`` (1-7)."""
        return self.deal[self._hand_index(hand)]

    def cards_left_after_deal(self, players: int, hand: int) -> int:
        """Cards of the shuffled decks not dealt in ``hand`` (1-7) to ``players`` players:
        the first discard and the stock. Negative when the decks hold too few."""
        decks = self.decks_for(players)
        return decks * (CARDS_PER_DECK + self.jokers_per_deck) - players * self.cards_dealt(hand)

    def can_deal(self, players: int, hand: int) -> bool:
        """Whether ``hand`` (1-7) can be dealt to ``players`` players and leave a card to
        turn up and one to draw (``UNDEALT_MIN``)."""
        return self.cards_left_after_deal(players, hand) >= UNDEALT_MIN

    def short_deal_reason(self, players: int, hand: int) -> str | None:
        """Why ``hand`` (1-7) cannot be dealt to ``players`` players with a stock left, as
        one clause for the command line and the score sheet alike; None when it can."""
        if self.can_deal(players, hand):
            return None
        count = self.decks_for(players)
        decks = f"{count} deck{'s' if count != 1 else ''}"
        left = self.cards_left_after_deal(players, hand)
        taken = (f"every card of the {decks}" if left == 0 else f"more cards than the {decks} hold" if left < 0
                 else f"all but {left} card{'s' if left != 1 else ''} of the {decks}")
        return f"{players} players × {self.cards_dealt(hand)} cards take {taken}, leaving no stock to draw from"

    def short_deals(self, players: int) -> tuple[int, ...]:
        """The hands that ``players`` players cannot deal (:meth:`can_deal`); most are none."""
        return tuple(hand for hand in HANDS if not self.can_deal(players, hand))

    def table_facts(self, players: int) -> dict[str, int]:
        """A table of ``players`` as JSON-ready facts: ``players``, ``decks``, ``jokers``.

        Raises:
            InvalidPlayerCountError: ``players`` outside the variant's range.
        """
        return {"players": players, "decks": self.decks_for(players), "jokers": self.jokers_for(players)}

    def hand_facts(self, players: int | None = None) -> list[dict[str, Any]]:
        """Hands 1-7 as JSON-ready facts: ``hand``, ``contract``, ``cards_dealt``,
        ``min_cards`` (the fewest that make the contract) and ``always_doubles``; for a table
        of ``players``, also ``cards_left`` (the first discard and the stock, never below 0)
        and ``short_deal`` (:meth:`short_deal_reason`, None where the deal leaves a stock).

        Raises:
            InvalidPlayerCountError: ``players`` outside the variant's range.
        """
        if players is not None:
            self.check_players(players)
        facts = []
        for hand in HANDS:
            contract = self.contract(hand)
            row: dict[str, Any] = {"hand": hand, "contract": str(contract), "cards_dealt": self.cards_dealt(hand),
                                   "min_cards": contract.min_cards, "always_doubles": self.doubles(hand)}
            if players is not None:
                row["cards_left"] = max(0, self.cards_left_after_deal(players, hand))
                row["short_deal"] = self.short_deal_reason(players, hand)
            facts.append(row)
        return facts

    def contract(self, hand: int) -> Contract:
        """The melds ``hand`` (1-7) asks for at go-down."""
        return self.contracts[self._hand_index(hand)]

    def doubles(self, hand: int | None = None, splash: bool = False) -> bool:
        """Whether the other players' scores double (a splash, or a splash-only hand).

        Raises:
            NoSplashError: ``splash`` asked for in a variant without the rule.
            TypeError: ``splash`` is not True or False.
        """
        if not isinstance(splash, bool):   # "no" is a true string: it must not double a score
            raise TypeError(f"splash is True or False, not {splash!r}")
        if splash and not self.has_splash:
            raise NoSplashError(self)
        if hand is not None and self._hand_index(hand) + 1 in self.splash_hands:
            return True
        return splash

    # -- cards -------------------------------------------------------------
    def is_wild(self, card: Card | str) -> bool:
        """True if ``card`` (a :class:`Card` or its code) is wild in this variant."""
        card = Card.from_code(card)
        if card.is_joker:
            return self.jokers_wild
        return self.red_aces_wild and card.is_red_ace

    def card_value(self, card: Card | str) -> int:
        """Points of ``card`` (a :class:`Card` or its code) left in hand.

        Raises:
            InvalidCardError: ``card`` is a code that is not a card.
            ImpossibleHandError: a Joker in a variant played without Jokers.
        """
        card = Card.from_code(card)
        if card.is_joker:
            if self.joker_value is None:
                raise ImpossibleHandError(
                    f"{self.name} is played without Jokers: JK cannot be in a hand", card
                )
            return self.joker_value
        if card.rank == 1:
            return self.red_ace_value if card.is_red else self.black_ace_value
        if card.rank >= 11:
            return self.face_value
        return card.rank

    def run_positions(self, card: Card) -> tuple[int, ...]:
        """Places a natural card may take in a run: 2-13 by rank; Ace 1 (low) and/or 14 (high)."""
        if card.rank != 1:
            return (card.rank,)
        return ((1,) if self.ace_low else ()) + ((14,) if self.ace_high else ())

    @property
    def run_bounds(self) -> tuple[int, int]:
        """Lowest and highest run positions (1 = low Ace, 14 = high Ace)."""
        return (1 if self.ace_low else 2, 14 if self.ace_high else 13)

    @property
    def wild_cards_text(self) -> str:
        """Which cards are wild, in words."""
        parts = (["Jokers"] if self.jokers_wild else []) + (["red Aces"] if self.red_aces_wild else [])
        return " and ".join(parts) if parts else "none"

    @property
    def ace_text(self) -> str:
        """Where an Ace goes in a run, in words."""
        if self.ace_low and self.ace_high:
            return "low (A 2 3 4) or high (J Q K A), never both"
        if self.ace_low:
            return "low only (A 2 3 4)"
        if self.ace_high:
            return "high only (J Q K A)"
        return "never in a run"

    @property
    def wild_limits_text(self) -> str:
        """The wild-card limits, in words."""
        rules = []
        if self.min_naturals >= 2:
            rules.append(f"every meld needs at least {self.min_naturals} natural cards")
        elif self.min_naturals == 1:
            rules.append("no meld of only wild cards")
        if self.max_set_wilds is not None:
            rules.append(f"a set holds at most {_count_words(self.max_set_wilds, 'wild card')}")
        if not self.wilds_may_touch:
            rules.append("no two wild cards side by side in a run")
        return "; ".join(rules) if rules else "none: a meld may be all wild cards"

    @property
    def runs_text(self) -> str:
        """What a run is in this variant, in words: length, suits, the Ace, no wrapping."""
        suits = "all one suit" if self.runs_same_suit else "suits mixed as you like"
        return (f"4 or more consecutive ranks, {suits}; Ace {self.ace_text}; "
                "never round the corner (K A 2 is not a run)")

    @property
    def decks_text(self) -> str:
        """Decks by table size and the Jokers shuffled in, in words."""
        by_decks: dict[int, list[int]] = {}
        for players in range(self.min_players, self.max_players + 1):
            by_decks.setdefault(self.decks_for(players), []).append(players)
        decks = ", ".join(
            f"{count} for {ps[0]} players" if len(ps) == 1 else f"{count} for {ps[0]}-{ps[-1]} players"
            for count, ps in by_decks.items()
        )
        jokers = f"{self.jokers_per_deck} Jokers per deck" if self.jokers_per_deck else "no Jokers"
        return f"{decks}; {jokers}"

    @property
    def go_down_text(self) -> str:
        """What may be laid down when going down, in words."""
        sizes = ("sets of exactly 3 cards and runs of exactly 4 (add the others later)" if self.exact_melds
                 else "sets of 3 or more cards and runs of 4 or more")
        return f"the hand's contract and nothing more: {sizes}"

    @property
    def card_values(self) -> tuple[tuple[str, str], ...]:
        """What each kind of card left in hand counts, as ``(cards, points)`` pairs in words."""
        jokers = (("Joker", str(self.joker_value)),) if self.joker_value is not None else ()
        return (*jokers, ("red Ace", str(self.red_ace_value)), ("black Ace", str(self.black_ace_value)),
                ("J Q K", str(self.face_value)), ("2-10", "face value"))

    @property
    def splash_text(self) -> str | None:
        """The splash rule in words; None in a variant without it."""
        if not self.has_splash:
            return None
        always = ", ".join(map(str, self.splash_hands))
        return ("going down and out in one turn (a splash) doubles the others' scores"
                + (f"; in hand {always} one may go down only by splashing, so hand {always} always doubles"
                   if always else ""))

    def rules_in_words(self) -> tuple[tuple[str, str], ...]:
        """The rules as ``(topic, words)`` pairs, the order a player asks in: the command
        line's ``variants`` and the score sheet's rules page both say these, so they agree.

        A deal the decks cannot make at some table size (:meth:`short_deal_reason`) is one
        more ``"short deal"`` pair each.
        """
        splash = self.splash_text
        return (
            ("players", f"{self.min_players}-{self.max_players}; decks: {self.decks_text}"),
            ("cards dealt", f"{', '.join(map(str, self.deal))} (hands 1-7)"),
            ("sets", SETS_TEXT),
            ("runs", self.runs_text),
            ("wild cards", f"{self.wild_cards_text}"
                           f"{'; a red Ace is wild even in a set of Aces' if self.red_aces_wild else '; red Aces are ordinary Aces'}"
                           f"; limits: {self.wild_limits_text}"),
            ("go-down", self.go_down_text),
            ("scoring", SCORING_TEXT),
            ("values", ", ".join(f"{cards} {points}" for cards, points in self.card_values)),
            *((("splash", splash),) if splash else ()),
            ("contracts", "; ".join(f"{hand}: {self.contract(hand)}" for hand in HANDS)),
            *(("short deal", f"hand {hand}: {self.short_deal_reason(players, hand)}")
              for players in range(self.min_players, self.max_players + 1)
              for hand in self.short_deals(players)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The rules as JSON-ready data."""
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "players": {"min": self.min_players, "max": self.max_players},
            "decks": {
                str(players): self.decks_for(players)
                for players in range(self.min_players, self.max_players + 1)
            },
            "jokers_per_deck": self.jokers_per_deck,
            "cards_dealt": list(self.deal),
            "contracts": [
                {"hand": hand, "sets": c.sets, "runs": c.runs, "text": str(c)}
                for hand, c in zip(HANDS, self.contracts)
            ],
            "wild_cards": {"jokers": self.jokers_wild, "red_aces": self.red_aces_wild},
            "wild_limits": {
                "min_naturals": self.min_naturals,
                "max_set_wilds": self.max_set_wilds,
                "wilds_may_touch": self.wilds_may_touch,
                "text": self.wild_limits_text,
            },
            "runs_same_suit": self.runs_same_suit,
            "ace": {"low": self.ace_low, "high": self.ace_high, "text": self.ace_text},
            "exact_melds": self.exact_melds,
            "values": {
                "joker": self.joker_value,
                "red_ace": self.red_ace_value,
                "black_ace": self.black_ace_value,
                "face": self.face_value,
                "two_to_ten": "face value",
            },
            "splash": {"has_splash": self.has_splash, "always_in_hands": list(self.splash_hands)},
            "notes": list(self.notes),
        }


_TWO_DECKS = ((99, 2),)
#: A rule of the discard pile that seeds 001, 003 and 004 each state.
_DEAD_CARD = "A discard covered by another is dead: it can no longer be taken."

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            name="llenroc",
            title="Llenroc Onze (the Caldwell family rules)",
            source="000",
            min_players=2,  # chosen: the text says "up to 8"
            max_players=8,
            decks_by_players=((5, 2), (6, 3), (8, 4)),  # 7 players: 4 decks (chosen)
            jokers_per_deck=2,
            deal=(6, 7, 8, 9, 10, 11, 12),
            joker_value=20,
            red_ace_value=15,
            black_ace_value=15,
            jokers_wild=True,
            red_aces_wild=False,
            min_naturals=0,
            max_set_wilds=None,
            wilds_may_touch=True,
            runs_same_suit=True,
            ace_low=True,
            ace_high=True,
            exact_melds=False,
            has_splash=True,
            splash_hands=(7,),
            notes=(
                "As you go down you may also lay off cards on other players' melds.",
                "Offdraw: taking a discard out of turn costs a penalty card from the stack; "
                "in hand 7 each player has at most 3 offdraws.",
                "Forgetting to say you hold one card costs a penalty card.",
            ),
        ),
        Variant(
            name="onze",
            title="Onze (as played in France and the US)",
            source="001",
            min_players=3,
            max_players=7,
            decks_by_players=_TWO_DECKS,
            jokers_per_deck=2,
            deal=ELEVEN_THEN_THIRTEEN,
            joker_value=30,
            red_ace_value=30,
            black_ace_value=20,
            jokers_wild=True,
            red_aces_wild=True,
            min_naturals=2,
            max_set_wilds=None,
            wilds_may_touch=False,
            runs_same_suit=True,
            ace_low=True,
            ace_high=False,
            exact_melds=False,
            notes=("A discard may be drawn out of turn; the taker does not discard.",
                   _DEAD_CARD),
        ),
        Variant(
            name="scorecard",
            title="Onze Score Card (the Onze Score Card app's rules)",
            source="002",
            min_players=3,
            max_players=7,
            decks_by_players=_TWO_DECKS,
            jokers_per_deck=2,
            deal=ELEVEN_THEN_THIRTEEN,
            joker_value=30,
            red_ace_value=30,
            black_ace_value=20,
            jokers_wild=True,
            red_aces_wild=True,
            min_naturals=0,  # chosen: the text states no limit
            max_set_wilds=None,
            wilds_may_touch=True,
            runs_same_suit=True,
            ace_low=True,
            ace_high=True,
            exact_melds=True,
            notes=(
                "A Joker in a run may be swapped for the card it stands for and must be "
                "played again at once; Jokers in sets may not be swapped.",
                "No adding to melds in the turn you go down.",
            ),
        ),
        Variant(
            name="once",
            title="Once' (Don Williamson's rules)",
            source="003",
            min_players=2,
            max_players=6,
            decks_by_players=_TWO_DECKS,
            jokers_per_deck=2,
            deal=ELEVEN_THEN_THIRTEEN,
            joker_value=30,
            red_ace_value=30,
            black_ace_value=15,
            jokers_wild=True,
            red_aces_wild=True,
            min_naturals=1,
            max_set_wilds=1,
            wilds_may_touch=False,
            runs_same_suit=False,
            ace_low=True,
            ace_high=False,
            exact_melds=False,
            notes=("Only the last discard may be stolen, while the player on turn has not discarded.",
                   _DEAD_CARD),
        ),
        Variant(
            name="ons",
            title="Ons (a variation on gin rummy)",
            source="004",
            min_players=2,  # chosen
            max_players=8,  # chosen
            decks_by_players=_TWO_DECKS,
            jokers_per_deck=0,  # chosen: the text never mentions Jokers
            deal=ELEVEN_THEN_THIRTEEN,
            joker_value=None,
            red_ace_value=25,
            black_ace_value=15,
            jokers_wild=False,
            red_aces_wild=True,
            min_naturals=0,  # chosen: the text states no limit
            max_set_wilds=None,
            wilds_may_touch=True,
            runs_same_suit=True,
            ace_low=False,
            ace_high=True,
            exact_melds=False,
            notes=("A red Ace on the table may be swapped for the card it stands for.",
                   _DEAD_CARD),
        ),
    )
}


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (case-insensitive); a :class:`Variant` passes through.

    Raises:
        UnknownVariantError: no such variant; the message lists the known ones.
    """
    if isinstance(name, Variant):
        return name
    if isinstance(name, str):
        variant = VARIANTS.get(name.strip().lower())
        if variant is not None:
            return variant
    raise UnknownVariantError(name)
