"""compose.yaml runs two bots, each with its own config, token file, PGN volume, status port, restart policy
and health check through its status page (docs/docker.md, "Several accounts")."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.config import load_settings
from tests.timing import STARTUP_S

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Container path -> what is mounted there."""
    out = {}
    for volume in service["volumes"]:
        source, target = volume.split(":")[:2]
        out[target] = source
    return out


def test_two_bots_one_per_server_kind() -> None:
    assert set(SERVICES) == {"pychess", "lichess"}
    dialects = {load_settings(ROOT / mounts(service)["/config/config.yml"]).server.dialect
                for service in SERVICES.values()}
    assert dialects == {"pychess", "lichess"}


def test_each_bot_has_its_own_config_token_volume_and_port() -> None:
    for key in ("/config/config.yml", "/games"):
        sources = [mounts(service)[key] for service in SERVICES.values()]
        assert len(set(sources)) == len(sources), f"{key} is shared"
    env_files = [service["env_file"] for service in SERVICES.values()]
    assert len(set(env_files)) == len(env_files)
    host_ports = [re.fullmatch(r"127\.0\.0\.1:(\d+):8080", service["ports"][0]).group(1)  # type: ignore[union-attr]
                  for service in SERVICES.values()]
    assert len(set(host_ports)) == len(host_ports)
    for name, service in SERVICES.items():
        assert service["restart"] == "unless-stopped", name
        assert mounts(service)["/games"] in COMPOSE["volumes"], f"{name}: a named volume (owned by uid 10001)"
        assert (ROOT / (service["env_file"] + ".example")).read_text().strip().endswith("SCHESS_BOT_TOKEN=")
        assert service["env_file"].endswith("token.env")
        settings = load_settings(ROOT / mounts(service)["/config/config.yml"])
        assert settings.status.address == ("0.0.0.0", 8080), f"{name}: the page, inside the container"
        assert settings.token_file is None, "the token comes from the env file only"


def test_each_health_check_asks_its_status_page() -> None:
    for name, service in SERVICES.items():
        check = service["healthcheck"]
        assert check["test"] == ["CMD", "python3", "-m", "bot.health", "http://127.0.0.1:8080", "60"], name
        assert {"interval", "timeout", "retries", "start_period"} <= set(check)


def test_the_tokens_stay_out_of_git() -> None:
    assert "bots/*/token.env" in (ROOT / ".gitignore").read_text().splitlines()
    tracked = subprocess.run(["git", "ls-files", "bots"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    assert not [path for path in tracked.stdout.split() if path.endswith("token.env")]


def test_the_docs_say_how_to_add_a_third_bot() -> None:
    docs = (ROOT / "docs" / "docker.md").read_text()
    section = docs.split("## Several accounts", 1)[1].split("\n## ", 1)[0]
    assert "third" in section and "docker-compose -f compose.yaml config" in section


def compose_command() -> list[str] | None:
    """``docker compose`` (the v2 plugin) where it works, else ``docker-compose`` (v1, Debian's), else None."""
    import shutil

    docker = shutil.which("docker")
    if docker is not None and subprocess.run([docker, "compose", "version"], capture_output=True,
                                             timeout=STARTUP_S).returncode == 0:
        return [docker, "compose"]
    standalone = shutil.which("docker-compose")
    return [standalone] if standalone is not None else None


def test_docker_compose_accepts_the_file(tmp_path: Path) -> None:
    """``docker compose config`` (no daemon needed) on a copy, with the token files made from their examples."""
    import shutil

    command = compose_command()
    if command is None:
        pytest.skip("neither docker compose nor docker-compose is installed (Debian: apt-get install "
                    "--no-install-recommends docker-compose)")
    shutil.copy(ROOT / "compose.yaml", tmp_path / "compose.yaml")
    shutil.copytree(ROOT / "bots", tmp_path / "bots", ignore=shutil.ignore_patterns("token.env"))
    for service in SERVICES.values():
        shutil.copy(tmp_path / (service["env_file"] + ".example"), tmp_path / service["env_file"])
    result = subprocess.run([*command, "-f", "compose.yaml", "config", "--quiet"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=STARTUP_S)
    assert result.returncode == 0, result.stderr
