# schess-bot in a container: the bot and its bundled S-chess engine, compiled with Cython.
#
#   docker build -t schess-bot .
#   docker build -t schess-bot:pure --build-arg COMPILED=0 .     # the pure-Python engine (no compiler stage work)
#   docker build -t schess-bot:pypy --build-arg COMPILED=0 --build-arg WITH_PYPY=1 .   # pure engine under PyPy
#   docker run -d --name schess-bot -e SCHESS_BOT_TOKEN=... \
#       -v "$PWD/config.yml:/config/config.yml:ro" -v schess-games:/games schess-bot
#
# The token comes only from the environment (never baked into the image); the config is a mounted file
# (the image ships the documented default at /config/config.yml); PGNs go to the /games volume. The image's
# reference, and how to build without a registry: docs/docker.md; what was checked with a real Docker daemon:
# docs/results.md.
#
# BASE_IMAGE: any Debian-based image with python3 >= 3.10 and pip (the default; or the stand-in that
# docs/docker.md builds with debootstrap when no registry is reachable). Both stages use it, so the compiled
# engine matches the runtime's Python.
ARG BASE_IMAGE=python:3.11-slim-bookworm

# ---- builder: a C compiler turns the engine into a wheel (SCHESS_ENGINE_COMPILE=1, Cython from PyPI).
# Nothing of this stage but the wheel reaches the image.
FROM ${BASE_IMAGE} AS builder
# COMPILED=1 (the default): the compiled engine, about 20x the pure build's speed under CPython and faster
# than PyPy (docs/results.md); COMPILED=0: the pure-Python wheel.
ARG COMPILED=1
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# gcc, and Python's headers where the base image lacks them (Debian's python3: python3-dev).
RUN if [ "$COMPILED" = 1 ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends gcc libc6-dev \
        && if ! python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then \
            apt-get install -y --no-install-recommends python3-dev; fi \
        && rm -rf /var/lib/apt/lists/*; \
    fi
COPY pyproject.toml setup.py README.md LICENSE config.yml /tmp/schess-src/
COPY build_backend /tmp/schess-src/build_backend
COPY engine /tmp/schess-src/engine
COPY bot /tmp/schess-src/bot
RUN SCHESS_ENGINE_COMPILE="$COMPILED" python3 -m pip wheel --no-deps --wheel-dir /tmp/schess-wheel /tmp/schess-src

# ---- the image: the wheel and its runtime dependencies, no compiler, no source tree.
FROM ${BASE_IMAGE}
ARG COMPILED=1

# WITH_PYPY=1 (off by default): apt-get install Debian's pypy3 and set engine.interpreter: pypy3 in the
# built-in config, so the bundled engine runs under PyPy (the bot itself stays on CPython); meant for the
# pure engine (COMPILED=0), as the compiled one is CPython's. Needs the Debian mirror at build time.
ARG WITH_PYPY=0

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# tini is PID 1 and passes docker stop's SIGTERM on to the bot, which handles it itself (graceful stop). Without
# it the bot would be PID 1, and the kernel drops a SIGTERM sent to PID 1 before the bot has installed its
# handler (about a second of imports at start-up): docker stop then waits its whole timeout (docs/docker.md,
# "Stopping").
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini $(if [ "$WITH_PYPY" = 1 ]; then echo pypy3; fi) \
    && apt-get clean && rm -rf /var/lib/apt/lists/*

# Install the builder's wheel and delete it in the same layer: no source tree, build/ or *.egg-info stays
# in the image, only the installed package. Runtime dependencies only (berserk, requests, pyyaml,
# prometheus_client). The build fails unless the engine is the build COMPILED asked for (checked outside any
# source folder).
COPY --from=builder /tmp/schess-wheel /tmp/schess-wheel
RUN python3 -m pip install /tmp/schess-wheel/*.whl \
    && rm -rf /tmp/schess-wheel \
    && cd / && python3 -c "import sys, engine.buildinfo as b; print(b.build_name()); \
        sys.exit(b.build_kind() is not (b.BuildKind.COMPILED if '$COMPILED' == '1' else b.BuildKind.PURE))" \
    && useradd --create-home --uid 10001 --user-group --shell /usr/sbin/nologin schess \
    && mkdir -p /config /games \
    && chown 10001:10001 /games
COPY config.yml /config/config.yml

# PyPy: the built-in config runs the engine under pypy3, and the build fails unless pypy3 -m engine answers a
# search (the bot puts the installed package's folder on PYTHONPATH for the engine process, as here).
RUN if [ "$WITH_PYPY" = 1 ]; then \
        sed -i 's/^  interpreter: null/  interpreter: pypy3/' /config/config.yml \
        && grep -q '^  interpreter: pypy3' /config/config.yml \
        && cd / \
        && printf 'uci\nisready\nposition startpos moves g1f3h\ngo depth 2\nquit\n' \
           | PYTHONPATH="$(python3 -c 'import engine, os; print(os.path.dirname(os.path.dirname(engine.__file__)))')" \
             pypy3 -m engine | grep -q '^bestmove '; \
    fi

# Numeric, so that "runAsNonRoot"-style checks can verify it; /games belongs to this uid.
USER 10001:10001
WORKDIR /home/schess
VOLUME ["/games"]

# Healthy while the event stream delivers lines (keep-alives arrive every 6-7 s).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python3", "-m", "bot.health", "/tmp/schess-bot.heartbeat", "60"]

# docker stop's SIGTERM reaches the bot through tini (exec form, no shell in between). The bot declines
# new challenges, finishes or aborts its games as shutdown.on_signal says, writes their PGNs and exits 0.
# Give it time: docker stop -t 600.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "schess-bot", "--config", "/config/config.yml", "--heartbeat-file", "/tmp/schess-bot.heartbeat", "--pgn-directory", "/games"]
CMD []
