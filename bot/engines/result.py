"""What a search produced, for every engine protocol: the move, the reply the engine expects, the score and
how long it took; and the parser of UCI ``info`` lines that fills it."""

from __future__ import annotations

from dataclasses import dataclass, field

#: mates on the centipawn scale: mate in n is MATE_CP - n (the match runner's adjudication compares these)
MATE_CP = 100_000


@dataclass(frozen=True)
class Score:
    """An evaluation from the side to move's view: ``cp`` centipawns, or ``mate`` in that many moves
    (negative: we are mated). Exactly one of the two is set. ``str()`` is its one printed form."""

    cp: int | None = None
    mate: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError(f"a score is centipawns or a mate, not both or neither: {self!r}")

    def __str__(self) -> str:
        """``+0.42``, ``-1.20``, ``#3``, ``#-2`` (logs, chat, PGN comments)."""
        if self.mate is not None:
            return f"#{self.mate}"
        return f"{(self.cp or 0) / 100:+.2f}"

    def centipawns(self, mate_cp: int = MATE_CP) -> int:
        """One scale for comparing scores: mates as +-(mate_cp - distance), so a nearer mate is better
        (``mate_cp``: 100000, or a smaller bound where a file stores the score in 16 bits)."""
        if self.mate is not None:
            return mate_cp - abs(self.mate) if self.mate > 0 else -mate_cp + abs(self.mate)
        return self.cp or 0


@dataclass
class EngineReply:
    """``score``: the last exact score the engine reported (side to move's view).
    ``late``: ``bestmove`` came only after ``stop`` at the deadline. ``pondered_s``: thinking done on the
    opponent's time before a ponderhit."""

    bestmove: str | None
    ponder: str | None = None
    score: Score | None = None
    depth: int | None = None
    nodes: int | None = None
    elapsed_s: float = 0.0
    pv: list[str] = field(default_factory=list)
    pondered_s: float | None = None
    late: bool = False
    book: bool = False  # the move came from an opening book, not a search

    @property
    def has_score(self) -> bool:
        return self.score is not None

    def describe_score(self) -> str:
        """The score as :class:`Score` prints it, ``?`` without one."""
        return "?" if self.score is None else str(self.score)

    def centipawns(self) -> int | None:
        """:meth:`Score.centipawns`, None without a score (draw and resign decisions, adjudication)."""
        return None if self.score is None else self.score.centipawns()


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
                        result.score = Score(cp=value)
                    elif kind == "mate":
                        result.score = Score(mate=value)
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
