"""The commented sample ``config.yml``: every key at its default with its comment (``schess-bot init`` writes
it). The repository's ``config.yml`` is the one source: the wheel carries a copy as package data
(``bot/config/config.yml``, put there by ``setup.py``); a source checkout reads the file itself."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

SAMPLE_NAME = "config.yml"


class SampleMissing(RuntimeError):
    """Neither the package nor the source tree has the sample (a broken install)."""


def sample_config_text() -> str:
    """The sample's text, from the installed package or else from the source checkout."""
    packaged = resources.files("bot.config").joinpath(SAMPLE_NAME)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    checkout = Path(__file__).resolve().parents[2] / SAMPLE_NAME
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    raise SampleMissing(f"the sample config is missing from this installation (looked for bot/config/"
                        f"{SAMPLE_NAME} and {checkout}); reinstall schess-bot")


def sample_for_server(url: str, variants: tuple[str, ...]) -> str:
    """The sample with ``server.url`` and ``challenge.variants`` set for one server (every comment kept)."""
    text = sample_config_text()
    text, urls = re.subn(r"(?m)^(  url: ).*$", lambda match: match.group(1) + url, text, count=1)
    challenge = text.index("\nchallenge:")
    head, tail = text[:challenge], text[challenge:]
    tail, lists = re.subn(r"(?m)^(  variants: ).*$", lambda match: match.group(1) + "[" + ", ".join(variants) + "]",
                          tail, count=1)
    if urls != 1 or lists != 1:
        raise SampleMissing("the sample config has no server.url or challenge.variants line to set")
    return head + tail
