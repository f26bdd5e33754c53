"""The docs keep up with the code: every command-line flag and every config key is documented (issue 27,
finding 8; ``tests/bot/test_bot_config.py`` checks the same for ``config.yml``)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from bot.app.cli import build_parser as bot_parser
from bot.app.init import build_parser as init_parser
from bot.loopback.__main__ import build_parser as loopback_parser
from bot.wire.dialect import LICHESS
from tests.bot.test_bot_config import setting_keys

ROOT = Path(__file__).resolve().parents[1]
BOT_DOC = (ROOT / "docs" / "bot.md").read_text()
SANDBOX_DOC = (ROOT / "docs" / "sandbox.md").read_text()
README = (ROOT / "README.md").read_text()


def flags(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings
            if option.startswith("--") and option != "--help"]


@pytest.mark.parametrize("parser, doc, name", [
    (bot_parser(), BOT_DOC, "docs/bot.md"),
    (init_parser(), BOT_DOC, "docs/bot.md"),
    (loopback_parser(), SANDBOX_DOC, "docs/sandbox.md"),
])
def test_every_command_line_flag_is_documented(parser: argparse.ArgumentParser, doc: str, name: str) -> None:
    missing = [flag for flag in flags(parser) if not re.search(rf"`{re.escape(flag)}[` \]]", doc)]
    assert not missing, f"{parser.prog}: flags missing from {name}: {missing}"


def config_sections(doc: str) -> dict[str, set[str]]:
    """The names quoted in each ``### `section` `` of the configuration reference (in its table or its prose),
    by section path (``engine.polyglot``; ``""`` for *Top-level keys*)."""
    reference = doc.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    sections: dict[str, set[str]] = {}
    for part in reference.split("\n### ")[1:]:
        heading, _, body = part.partition("\n")
        quoted = re.search(r"`([^`]+)`", heading)
        if quoted:
            path = quoted.group(1).split(":")[0].strip()
        elif heading.strip() == "Top-level keys":
            path = ""
        else:
            continue
        sections.setdefault(path, set()).update(re.findall(r"`([\w.]+)`", body))
    return sections


def undocumented_keys(doc: str, keys: list[str]) -> list[str]:
    """The keys ``doc`` does not document: a key with a section counts when its full path is quoted anywhere
    (`` `engine.options` ``), and any key when the rest of its path is quoted in the section its path starts
    with (``limits.depth`` under ``### `engine` ``, ``book`` under ``### `engine.polyglot` ``, ``pgn_directory``
    under *Top-level keys*). The same name quoted in another section, or outside the reference, does not
    count."""
    quoted = {text.split(":")[0].split(" ")[0] for text in re.findall(r"`([^`\n]+)`", doc)}
    sections = config_sections(doc)

    def documented(key: str) -> bool:
        if "." in key and key in quoted:
            return True
        for path, names in sections.items():
            prefix = f"{path}." if path else ""
            if key.startswith(prefix) and key[len(prefix):] in names:
                return True
        return False

    return sorted(key for key in keys if not documented(key))


def test_every_config_key_is_documented() -> None:
    """Each key as its full path (`engine.options`) or, inside its own section, as its own name."""
    missing = undocumented_keys(BOT_DOC, setting_keys())
    assert not missing, f"config keys missing from docs/bot.md: {missing}"


def test_a_key_named_only_in_another_sections_table_is_not_documented() -> None:
    doc = ("## Configuration reference\n### `server`\n| key | default |\n|---|---|\n| `url` | x |\n"
           "### `engine.polyglot`\n| key | default |\n|---|---|\n| `enabled` | x |\n"
           "### Top-level keys\n| key | default |\n|---|---|\n| `token_file` | x |\n## Next\n"
           "Prose that quotes `enabled`, `draw.moves` and `moves`.\n")
    keys = ["server.url", "engine.polyglot.enabled", "token_file", "draw.enabled", "draw.moves",
            "resign.moves", "server.token_file", "url"]
    assert undocumented_keys(doc, keys) == ["draw.enabled", "resign.moves", "server.token_file", "url"]


def test_the_docs_give_the_token_pages_the_bot_names() -> None:
    lichess = re.search(r"https://lichess\.org/\S+", LICHESS.token_help("https://lichess.org"))
    assert lichess is not None
    for doc in (README, BOT_DOC):
        assert f"<{lichess.group(0)}>" in doc
        assert "https://www.pychess.org/account/bot" in BOT_DOC


def test_the_operators_path_in_the_readme_is_the_commands_that_exist() -> None:
    for step in ("schess-bot init", "schess-bot --check", "schess-bot --sandbox", "schess-bot --config"):
        assert step in README, step
    assert "python3-dev" in README, "the compiled build's need for Python headers"
    assert "never played on stand-in moves" not in README


def test_the_code_map_names_only_modules_that_exist() -> None:
    code_map = BOT_DOC.split("## Code map", 1)[1]
    paths = re.findall(r"`(bot/[\w/]+\.py)`", code_map)
    assert paths and [path for path in paths if not (ROOT / path).is_file()] == []
    for module in ("bot/app/sandbox.py", "bot/app/health.py", "bot/game/books.py", "bot/records/results.py"):
        assert f"`{module}`" in code_map


def test_the_code_map_names_every_module_of_the_bot() -> None:
    """Its preface says a test keeps the table listing every module: a package's ``__init__.py`` may go
    unnamed (it re-exports), every other module of ``bot/`` is named by its path."""
    code_map = set(re.findall(r"`(bot/[\w/]+\.py)`", BOT_DOC.split("## Code map", 1)[1]))
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "bot").rglob("*.py")}
    unnamed = sorted(module for module in modules - code_map
                     if not module.endswith("/__init__.py") or module == "bot/__init__.py")
    assert not unnamed, "modules missing from docs/bot.md's code map: " + ", ".join(unnamed)


def test_the_architecture_names_files_that_exist_and_every_package_in_its_tree() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    paths = set(re.findall(r"`((?:bot|engine|tools)/[\w/]*?\w\.(?:py|md))", doc))
    assert paths and sorted(path for path in paths if not (ROOT / path).is_file()) == []
    tree = doc.split("```", 2)[1]
    layers = {path.parent.name for path in (ROOT / "bot").glob("*/__init__.py")}
    assert sorted(layer for layer in layers if f"\n  {layer}/ " not in tree) == []
    words = set(re.findall(r"[\w.]+", tree))
    engine_modules = {path.stem for path in (ROOT / "engine").glob("*.py")} - {"__init__"}
    assert sorted(engine_modules - words) == [], "engine modules missing from the tree"
    tools = {f"tools.{path.stem if path.suffix else path.name}" for path in (ROOT / "tools").iterdir()
             if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()}
    assert sorted(tools - words) == [], "tools missing from the tree"
