"""The docs keep up with the code: every command-line flag and every config key is documented (issue 27,
finding 8; ``tests/bot/test_bot_config.py`` checks the same for ``config.yml``)."""

from __future__ import annotations

import argparse
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

from bot.app.cli import build_parser as bot_parser
from bot.app.init import build_parser as init_parser
from bot.loopback.__main__ import build_parser as loopback_parser
from bot.wire.dialect import LICHESS
from engine.options import markdown_table
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


def undocumented_keys(doc: str, keys: Iterable[str]) -> list[str]:
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


def test_the_architecture_names_everything_the_root_package_holds() -> None:
    """Its paragraph on the root ``bot`` package names each name the package exports and each module beside
    the layers (``bot/__main__.py``, ``bot/health.py``)."""
    import bot

    doc = (ROOT / "docs" / "architecture.md").read_text()
    paragraph = doc.split("The root `bot` package", 1)[1].split("\n\n", 1)[0]
    assert sorted(name for name in bot.__all__ if f"`{name}`" not in paragraph) == []
    modules = [f"bot/{path.name}" for path in (ROOT / "bot").glob("*.py") if path.name != "__init__.py"]
    assert modules and sorted(module for module in modules if f"`{module}`" not in paragraph) == []


# --- The docs as a reference (issue 47): cited paths exist, figures name their build, no work log. ---

DOCS = {"README.md": README} | {f"docs/{path.name}": path.read_text() for path in sorted((ROOT / "docs").glob("*.md"))}
RESULTS = (ROOT / "docs" / "results.md").read_text()
#: a path into the repository: a top-level folder, then at least one more part, ending in a word character
CITED_PATH = re.compile(r"(?<![\w./<$-])((?:bot|engine|tools|tests|docs|build_backend)/[\w./-]*\w)")
HASH = re.compile(r"\b[0-9a-f]{7,40}\b")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def cited_paths(text: str) -> set[str]:
    """Repository paths a document names (``tests/engine/test_oracle.py``, ``engine/data/seirawan.epd``,
    ``bot/wire/``), with a line reference (``:51``) left off."""
    return set(CITED_PATH.findall(text))


def test_cited_paths_finds_files_folders_and_skips_urls() -> None:
    text = ("see `tests/engine/test_oracle.py`, bot/loopback/__main__.py:51, (docs/engine.md#how-to-measure), "
            "https://lichess.org/api/bot/game and /tmp/engine/x, `engine/*.pxd`, $VENV/bin/schess-engine")
    assert cited_paths(text) == {"tests/engine/test_oracle.py", "bot/loopback/__main__.py", "docs/engine.md"}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_every_path_a_doc_cites_exists(name: str) -> None:
    missing = sorted(path for path in cited_paths(DOCS[name]) if not (ROOT / path).exists())
    assert not missing, f"{name} cites paths that do not exist: {missing}"


#: a relative path that climbs (``../shared/data/x.epd``, ``../README.md``)
CLIMBING_PATH = re.compile(r"(?<![\w.])((?:\.\./)+[\w.-]*[\w/.-]*)")


def paths_outside(name: str, text: str) -> list[str]:
    """The climbing paths of a document that are not a link to a file of the repository from the document's
    folder (``../README.md`` from ``docs/``): ``../shared/data/x.epd`` in a command run from the repository's
    root names a folder beside it. A line about hostile input (a game id such as ``../../etc/x``) is not a
    pointer."""
    here = (ROOT / name).parent.resolve()
    root = ROOT.resolve()
    found = []
    for line in text.splitlines():
        if "hostile" in line:
            continue
        for path in CLIMBING_PATH.findall(line):
            target = (here / path).resolve()
            if not (target.is_relative_to(root) and target.exists()):
                found.append(path)
    return found


def test_paths_outside_finds_what_leaves_the_repository() -> None:
    text = "see [the README](../README.md), run `--openings ../shared/data/seirawan.epd`\nhostile `../../etc/x`"
    assert paths_outside("docs/x.md", text) == ["../shared/data/seirawan.epd"]
    assert paths_outside("README.md", "[docs](docs/bot.md) and ../other") == ["../other"]


@pytest.mark.parametrize("name", sorted(DOCS))
def test_no_doc_points_outside_the_repository(name: str) -> None:
    """A clone of the repository is all a reader has: a doc names no file or folder beside it (data, tools,
    other checkouts); data a command needs is an argument the reader gives, or a file in the repository."""
    outside = paths_outside(name, DOCS[name])
    assert not outside, f"{name} points outside the repository: {outside}"


def prose(text: str) -> str:
    """``text`` without fenced code blocks and code spans: what a reader reads as words."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.DOTALL))


@pytest.mark.parametrize("name", sorted(DOCS))
def test_no_doc_speaks_of_sessions(name: str) -> None:
    """A reference says what is, with the build (commit, date) that showed it; a count of work periods tells
    a reader nothing. (An HTTP session in code, `requests.Session`, is code and not prose.)"""
    lines = [line for line in prose(DOCS[name]).splitlines() if re.search(r"\bsessions?\b", line, re.I)]
    assert not lines, f"{name} speaks of sessions: {lines[:3]}"


def test_prose_leaves_out_code() -> None:
    assert prose("a `requests.Session` b\n```sh\nsession\n```\nc") == "a  b\n\nc"


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the body rows of the first table under ``heading``."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


README_FIGURES = table_rows(README, "## Performance and strength")
RESULT_ROWS = table_rows(RESULTS, "How to read a row:")


def test_each_figure_of_the_readme_names_its_build_newest_first() -> None:
    """Every row of the README's table names a commit and the date it was measured, newest first."""
    dates = []
    for row in README_FIGURES:
        build = row[1]
        assert HASH.search(build) and DATE.search(build), f"row without a commit and a date: {row}"
        dates.append(DATE.findall(build)[0])
    assert README_FIGURES and dates == sorted(dates, reverse=True)


def test_each_result_names_a_commit_or_says_why_not_oldest_first() -> None:
    dates = []
    for row in RESULT_ROWS:
        change, commit, date = row[:3]
        assert HASH.search(commit) or commit in ("not committed", "not recorded", "not in the repository"), row
        assert DATE.match(date), row
        dates.append(date[:10])
    assert RESULT_ROWS and dates == sorted(dates)


def test_each_match_of_the_readme_is_recorded_in_the_results() -> None:
    """The README's table is the newest part of the record: its W/D/L figures are in docs/results.md on a row
    of the same commit."""
    for row in README_FIGURES:
        commit = HASH.findall(row[1])[0]
        recorded = " ".join(" ".join(result) for result in RESULT_ROWS if commit in result[1])
        for score in re.findall(r"\+\d+ =\d+ -\d+", row[3]):
            assert score in recorded, f"README row {row[0]!r} ({commit}): {score} is not in docs/results.md"


SCORES = (
    re.compile(r"(?P<pct>\d+\.\d)%\*{0,2} \(\+(?P<w>\d+) =(?P<d>\d+) -(?P<l>\d+)(?:, (?P<n>\d+) games)?"),
    re.compile(r"\+(?P<w>\d+) =(?P<d>\d+) -(?P<l>\d+), \*{0,2}(?P<pct>\d+\.\d)%"),
)


def scores(text: str) -> list[tuple[str, float, int, int, int, int | None]]:
    found = []
    for pattern in SCORES:
        for match in pattern.finditer(text):
            games = match.group("n") if "n" in pattern.groupindex else None
            found.append((match.group(0), float(match.group("pct")), int(match.group("w")), int(match.group("d")),
                          int(match.group("l")), int(games) if games else None))
    return found


def test_scores_finds_both_ways_of_writing_a_result() -> None:
    assert [found[1:] for found in scores("**70.0%** (+14 =0 -6, 20 games); +20 =4 -16, 55.0% (+35)")] == [
        (70.0, 14, 0, 6, 20), (55.0, 20, 4, 16, None)]


@pytest.mark.parametrize("name", ["README.md", "docs/results.md"])
def test_each_score_is_what_its_wins_draws_and_losses_give(name: str) -> None:
    """A percentage written beside its +W =D -L is (W + D/2) / games, within the match runner's rounding, and
    a game count beside them is their sum."""
    wrong = []
    for text, percent, wins, draws, losses, games in scores(DOCS[name]):
        total = wins + draws + losses
        if abs(100 * (wins + draws / 2) / total - percent) > 0.05 + 1e-9 or games not in (None, total):
            wrong.append(text)
    assert not wrong, f"{name}: scores that do not add up: {wrong}"


def git(*args: str) -> str | None:
    """``git`` in the repository, or None when this is not a full git checkout (an sdist, a shallow clone)."""
    try:
        shallow, top = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository",
                                       "--show-toplevel"], capture_output=True, text=True, check=True).stdout.split()
        if shallow != "false" or Path(top).resolve() != ROOT:  # a shallow clone, or a tree inside another repo
            return None
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def commit_date(commit: str) -> str | None:
    return git("show", "-s", "--format=%cs", f"{commit}^{{commit}}")


def test_each_commit_the_figures_name_exists_and_came_before_its_figure() -> None:
    if git("rev-parse", "HEAD") is None:
        pytest.skip("not a full git checkout: the commits cannot be looked up")
    rows = [(row[1], DATE.findall(row[1])[0]) for row in README_FIGURES]
    rows += [(row[1], row[2][:10]) for row in RESULT_ROWS]
    wrong = []
    for cell, measured in rows:
        for commit in HASH.findall(cell):
            made = commit_date(commit)
            if made is None or made > measured:
                wrong.append(f"{commit} ({made or 'not in git log'}) measured {measured}")
    assert not wrong, "figures naming a commit that does not exist or is newer than the figure: " + ", ".join(wrong)


def figures_outside_tables(text: str) -> list[str]:
    """Percentages and ratios (``67.5%``, ``25.4x``) in a document's prose, outside its tables and code."""
    lines = [line for line in prose(text).splitlines() if not line.startswith("|")]
    return re.findall(r"\b\d+(?:\.\d+)?(?:%|x\b)", "\n".join(lines))


def test_figures_outside_tables_finds_prose_figures_only() -> None:
    text = "It is 25.4x as fast, 67.5% in all.\n| a | 12.4x | 70.0% |\n`[%eval 0.42]` and ```\n99% 3x\n```"
    assert figures_outside_tables(text) == ["25.4x", "67.5%"]


def test_the_readme_states_each_figure_once_in_its_table() -> None:
    """One table for figures: a ratio or a score restated in prose drifts from the table (the compiled build was
    "about 12x" in one place and "31x" in another)."""
    assert figures_outside_tables(README) == []


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub makes of a document's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", markdown, flags=re.DOTALL), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_anchors_are_githubs() -> None:
    page = "# A\n## Builds: pure Python and compiled\n```\n# not a heading\n```\n### `engine.polyglot`: books"
    assert anchors(page) == {"a", "builds-pure-python-and-compiled", "enginepolyglot-books"}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_every_link_to_a_section_finds_its_heading(name: str) -> None:
    """A link such as ``docs/engine.md#how-to-measure`` (or ``#tokens`` within the page) names a heading the
    target page has."""
    here = (ROOT / name).parent
    broken = []
    for target, anchor in re.findall(r"\]\(([\w./-]*\.md)?#([\w-]+)\)", DOCS[name]):
        path = (here / target) if target else ROOT / name
        if not path.is_file() or anchor not in anchors(path.read_text()):
            broken.append(f"{target}#{anchor}")
    assert not broken, f"{name} links to sections that do not exist: {broken}"


def uci_option_table(engine_doc: str) -> list[str]:
    """The rows of the option table in ``docs/engine.md``'s UCI section (its first table)."""
    section = engine_doc.split("\n## UCI\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_engine_docs_list_the_uci_options_as_the_engine_declares_them() -> None:
    """docs/engine.md's option table is made from the engine's one table of options (engine/options.py), as the
    ``uci`` answer and the checks of ``setoption`` are."""
    expected = markdown_table()
    assert uci_option_table((ROOT / "docs" / "engine.md").read_text()) == expected.splitlines(), (
        "docs/engine.md's option table differs from engine/options.py; it should read:\n" + expected)
