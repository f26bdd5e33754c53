# schess-bot in a container: the bot and its bundled pure-Python S-chess engine.
#
#   docker build -t schess-bot .
#   docker build -t schess-bot:pypy --build-arg BASE_IMAGE=pypy:3.10-slim .   # faster engine (PyPy)
#   docker run -d --name schess-bot -e SCHESS_BOT_TOKEN=... \
#       -v "$PWD/config.yml:/config/config.yml:ro" -v "$PWD/games:/games" schess-bot
#
# The token comes only from the environment (never baked into the image); the config is a mounted file
# (the image ships the documented default at /config/config.yml); PGNs go to the /games volume.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/schess-bot
COPY pyproject.toml README.md LICENSE ./
COPY engine ./engine
COPY bot ./bot
# Runtime dependencies only (berserk, requests, pyyaml); no test or dev tools in the image.
RUN python -m pip install . \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin schess \
    && mkdir -p /config /games \
    && chown schess:schess /games
COPY config.yml /config/config.yml

USER schess
VOLUME ["/games"]

# Healthy while the event stream delivers lines (keep-alives arrive every 6-7 s).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.health", "/tmp/schess-bot.heartbeat", "60"]

# docker stop sends SIGTERM: the bot declines new challenges, finishes or aborts its games as
# shutdown.on_signal says, writes their PGNs and exits 0. Give it time: docker stop -t 600.
STOPSIGNAL SIGTERM
ENTRYPOINT ["schess-bot", "--config", "/config/config.yml", "--heartbeat-file", "/tmp/schess-bot.heartbeat", "--pgn-directory", "/games"]
CMD []
