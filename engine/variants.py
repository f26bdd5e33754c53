"""The variants, in one place: the rules' names, start positions, and what the servers and PGN call them.

The rules know three variants: ``seirawan`` (S-chess) and ``chess``, each with or without the Chess960 flag,
and ``shouse`` (S-House: S-chess with crazyhouse drops, no 960 form). The five combinations have one name each,
used in the bot's ``challenge.variants``, in pychess's capability header (which checks ``variant + "960"``)
and on the command lines of the tools: ``seirawan``, ``seirawan960``, ``shouse``, ``chess``, ``chess960``.
Lichess calls standard chess ``standard`` and has no S-House; PGN ``[Variant]`` tags follow pychess's exports
(``Seirawan``, ``Seirawan960``, ``Shouse``, ``Chess960``, none for standard chess).
"""

from __future__ import annotations

VARIANTS = ("seirawan", "chess", "shouse")

#: The variants whose captured pieces go to the captor's hand and whose pieces in hand may be dropped.
DROP_VARIANTS = frozenset({"shouse"})
#: The variants with pieces in hand that are gated onto vacated back-rank squares.
GATING_VARIANTS = frozenset({"seirawan", "shouse"})

#: Start positions in Fairy-Stockfish's notation (pieces in hand as ``[EHeh]``, its FEN order).
START_FENS = {
    "seirawan": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1",
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "shouse": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1",
}

#: (variant, chess960) -> the one name of that combination.
NAMES = {
    ("seirawan", False): "seirawan",
    ("seirawan", True): "seirawan960",
    ("shouse", False): "shouse",
    ("chess", False): "chess",
    ("chess", True): "chess960",
}
VARIANT_NAMES = tuple(NAMES.values())

#: Lichess-shaped ``variant.key`` of each combination (Lichess itself has no S-chess and no S-House), and the
#: other keys servers use for them.
LICHESS_KEYS = {
    ("seirawan", False): "seirawan",
    ("seirawan", True): "seirawan960",
    ("chess", False): "standard",
    ("chess", True): "chess960",
    ("shouse", False): "shouse",
}
_SERVER_KEYS = {
    "seirawan": ("seirawan", False), "seirawan960": ("seirawan", True), "schess": ("seirawan", False),
    "s-chess": ("seirawan", False), "standard": ("chess", False), "chess": ("chess", False),
    "fromposition": ("chess", False), "chess960": ("chess", True), "shouse": ("shouse", False),
    "s-house": ("shouse", False),
}

#: PGN ``[Variant]`` tag values, as pychess.org writes them (None: standard chess has no tag).
PGN_NAMES = {
    ("seirawan", False): "Seirawan",
    ("seirawan", True): "Seirawan960",
    ("chess", False): None,
    ("chess", True): "Chess960",
    ("shouse", False): "Shouse",
}


def variant_name(variant: str, chess960: bool) -> str:
    """``("seirawan", True)`` -> ``"seirawan960"``."""
    return NAMES[(variant, chess960)]


def split_variant_name(name: str) -> tuple[str, bool]:
    """``"seirawan960"`` -> ``("seirawan", True)``. Raises ValueError for an unknown name."""
    for key, value in NAMES.items():
        if value == name:
            return key
    raise ValueError(f"unknown variant {name!r}: expected one of {', '.join(VARIANT_NAMES)}")


def from_server_key(key: str, chess960: bool = False) -> tuple[str, bool] | None:
    """A server's variant key (any case; ``chess960`` flag from pychess) -> (variant, chess960), or None when
    the rules do not know it."""
    found = _SERVER_KEYS.get(key.lower())
    if found is None:
        return None
    if chess960 and (found[0], True) not in NAMES:
        return None  # no S-House960
    return found[0], found[1] or chess960


def pgn_variant_tag(variant: str, chess960: bool) -> str | None:
    """The PGN ``[Variant]`` value, or None for standard chess."""
    return PGN_NAMES[(variant, chess960)]
