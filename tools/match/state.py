"""A match's file of finished games (``--state FILE``), so that a long match, an SPRT above all, can be
stopped at any moment and resumed where it stood.

The file is JSON lines: a header that holds what decides the games (engines, options, time control,
variant, openings, seed, adjudication, SPRT bounds), then one line per finished game, written as soon as the
game ends. A match started with an existing file checks the header against its own settings (a different
match is refused, naming the first setting that differs), counts the games already there and plays only the
others; ``--games`` may be raised to extend a match. A line cut short by a kill is ignored and its game is
played again.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Dict, List, Optional

from tools.match.game import MatchRecord
from tools.match.openings import GameJob
from tools.match.settings import MatchSettings

FORMAT = 1
# Settings that change how the games are played or counted; the others (concurrency, output, --games as
# the cap) may differ between the runs of one match.
_DECIDING = (
    "engine1",
    "engine2",
    "time_control",
    "variant",
    "chess960",
    "openings_file",
    "shuffle_openings",
    "seed",
    "adjudication",
    "time_margin_ms",
    "sprt",
)


def match_fingerprint(settings: MatchSettings) -> Dict[str, Any]:
    """The deciding settings as plain JSON values (tuples become lists), for the header and the check."""
    values = {name: getattr(settings, name) for name in _DECIDING}
    plain = {
        name: dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value
        for name, value in values.items()
    }
    loaded: Dict[str, Any] = json.loads(json.dumps(plain))
    return loaded


class MatchState:
    """The state file of one match: ``load`` the games already played, ``save`` each new one."""

    def __init__(self, path: str, settings: MatchSettings):
        self.path = path
        self.settings = settings
        self.fingerprint = match_fingerprint(settings)

    def load(self, jobs: Dict[int, GameJob], names: tuple[str, str]) -> List[MatchRecord]:
        """The finished games of the file as records (without their moves), after checking that it belongs to
        this match; writes the header to a new or empty file. ValueError names what does not match."""
        lines: List[str] = []
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as handle:
                text = handle.read()
            lines = text.splitlines()
            if text and not text.endswith("\n"):
                # the last line was cut short by a kill: drop it (its game is played again), so that the
                # next line appended starts on a line of its own
                lines = lines[:-1]
                with open(self.path, "w", encoding="utf-8") as handle:
                    handle.write("".join(line + "\n" for line in lines))
        if not lines or not lines[0].strip():
            with open(self.path, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"format": FORMAT, "match": self.fingerprint}) + "\n")
            return []
        self._check_header(lines[0])
        records: Dict[int, MatchRecord] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                saved = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{self.path}:{number}: not a JSON line") from None
            record = self._record(saved, jobs, names, f"{self.path}:{number}")
            if record is not None:
                records[record.job.number] = record
        return [records[number] for number in sorted(records)]

    def _check_header(self, line: str) -> None:
        try:
            header = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{self.path} is not a match state file (its first line is not JSON)") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("match"), dict):
            raise ValueError(f"{self.path} is not a match state file of format {FORMAT}")
        saved = header["match"]
        for name in _DECIDING:
            if saved.get(name) != self.fingerprint[name]:
                raise ValueError(
                    f"{self.path} belongs to another match: its {name} is {saved.get(name)!r}, "
                    f"this match's is {self.fingerprint[name]!r}"
                )

    def _record(
        self, saved: Any, jobs: Dict[int, GameJob], names: tuple[str, str], where: str
    ) -> Optional[MatchRecord]:
        try:
            number = int(saved["number"])
            opening = str(saved["opening"])
            result = str(saved["result"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{where}: a game line needs number, opening and result") from None
        if result not in ("1-0", "0-1", "1/2-1/2"):
            raise ValueError(f"{where}: result {result!r} is not 1-0, 0-1 or 1/2-1/2")
        job = jobs.get(number)
        if job is None:
            return None  # beyond this run's --games: kept in the file, not counted now
        if job.opening.source != opening:
            raise ValueError(
                f"{where}: game {number} was played from {opening}, this schedule gives {job.opening.source}"
            )
        white, black = names if job.engine1_is_white else names[::-1]
        faulty = saved.get("faulty_engine")
        return MatchRecord(
            job=job,
            white=white,
            black=black,
            start_fen=job.opening.fen,
            variant=self.settings.variant,
            chess960=self.settings.chess960,
            result=result,
            termination=str(saved.get("termination", "")),
            reason=str(saved.get("reason", "")),
            fault=saved.get("fault"),
            faulty_engine=int(faulty) if faulty is not None else None,
        )

    def save(self, record: MatchRecord) -> None:
        """Append one finished game and flush it, so that a kill loses at most the game being written."""
        line = {
            "number": record.job.number,
            "opening": record.job.opening.source,
            "result": record.result,
            "termination": record.termination,
            "reason": record.reason,
            "fault": record.fault,
            "faulty_engine": record.faulty_engine,
            "plies": len(record.moves),
        }
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
