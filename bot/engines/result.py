"""What a search produced, for every engine protocol: the move, the reply the engine expects, the score and
how long it took; and the parser of UCI ``info`` lines that fills it."""

from __future__ import annotations

from dataclasses import dataclass, field

#: mates on the centipawn scale: mate in n is MATE_CP - n (the match runner's adjudication compares these)
MATE_CP = 100_000


@dataclass
class EngineReply:
    """``score_cp``/``mate`` from the side to move's view (the last exact score the engine reported).
    ``late``: ``bestmove`` came only after ``stop`` at the deadline. ``pondered_s``: thinking done on the
    opponent's time before a ponderhit."""

    bestmove: str | None
    ponder: str | None = None
    score_cp: int | None = None
    mate: int | None = None
    depth: int | None = None
    nodes: int | None = None
    elapsed_s: float = 0.0
    pv: list[str] = field(default_factory=list)
    pondered_s: float | None = None
    late: bool = False
    book: bool = False  # the move came from an opening book, not a search

    @property
    def has_score(self) -> bool:
        return self.score_cp is not None or self.mate is not None

    def describe_score(self) -> str:
        """``+0.42``, ``#3``, ``#-2`` or ``?`` (for the log)."""
        if self.mate is not None:
            return f"#{self.mate}"
        if self.score_cp is not None:
            return f"{self.score_cp / 100:+.2f}"
        return "?"

    def pgn_score(self) -> str:
        """``+0.35``, ``-1.20``, ``+M3``, ``-M2`` (for PGN comments); ``?`` without a score."""
        if self.mate is not None:
            return f"+M{self.mate}" if self.mate > 0 else f"-M{abs(self.mate)}"
        if self.score_cp is not None:
            return f"{self.score_cp / 100:+.2f}"
        return "?"

    def score_for_decisions(self) -> int | None:
        """Centipawns, with mates as +-100000 (for draw and resign decisions)."""
        if self.mate is not None:
            return MATE_CP if self.mate > 0 else -MATE_CP
        return self.score_cp

    def centipawns(self) -> int | None:
        """One scale for adjudication: mates as +-(100000 - distance)."""
        if self.mate is not None:
            return MATE_CP - abs(self.mate) if self.mate > 0 else -MATE_CP + abs(self.mate)
        return self.score_cp


def parse_info(line: str, result: EngineReply) -> None:
    """Fold one ``info ...`` line into ``result`` (depth, nodes, score, pv).

    A score with ``lowerbound``/``upperbound`` is only a bound from a failed aspiration search: it is used
    only while no exact score has been reported, and never replaces one. ``info string`` is free text."""
    tokens = line.split()
    index = 1
    while index < len(tokens):
        token = tokens[index]
        try:
            if token == "depth":
                result.depth = int(tokens[index + 1])
                index += 2
            elif token == "nodes":
                result.nodes = int(tokens[index + 1])
                index += 2
            elif token == "score":
                kind, value = tokens[index + 1], int(tokens[index + 2])
                bound = index + 3 < len(tokens) and tokens[index + 3] in ("lowerbound", "upperbound")
                if not bound or not result.has_score:
                    if kind == "cp":
                        result.score_cp, result.mate = value, None
                    elif kind == "mate":
                        result.mate, result.score_cp = value, None
                index += 4 if bound else 3
            elif token == "pv":
                result.pv = tokens[index + 1:]
                break
            elif token == "string":
                break
            else:
                index += 1
        except (IndexError, ValueError):
            index += 1
