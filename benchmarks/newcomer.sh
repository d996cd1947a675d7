#!/usr/bin/env bash
# A newcomer's first answer, measured: git clone -> README's `make run` -> /ready -> first token.
#
#   benchmarks/newcomer.sh [REPO]        (default: the repository this script lives in)
#
# Clones REPO into a temp folder, runs `make run` there with an empty pip cache
# (PIP_NO_CACHE_DIR=1) and an empty model cache, and records: set-up time (make setup), model
# preparation time (download + convert), time to /ready, time to the first streamed token,
# disk of .venv and of the model cache, the gateway's RSS with both real engines up, and with
# fake engines (the same routes.yaml, `backend: fake`). Not part of the test suite: it takes
# minutes and downloads ~1.5 GB. Prints a markdown table and writes the figures as JSON to
# $OUT (default /tmp/switchboard-newcomer.json). KEEP=1 keeps the temp folder.
set -euo pipefail

source_repo="${1:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}"
port="${PORT:-18431}"
work="$(mktemp -d /tmp/switchboard-newcomer.XXXXXX)"
out="${OUT:-/tmp/switchboard-newcomer.json}"
clone="$work/switchboard"
log="$work/make-run.log"
export PIP_NO_CACHE_DIR=1
export SWITCHBOARD_MODEL_CACHE="$work/models"
server_pgid=""

now() { date +%s.%N; }

stop_server() {
  if [[ -n "$server_pgid" ]]; then
    kill -TERM -- "-$server_pgid" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 -- "-$server_pgid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$server_pgid" 2>/dev/null || true
  fi
  server_pgid=""
}
cleanup() {
  stop_server
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT

t_start=$(now)
git clone --quiet "$source_repo" "$clone"
cd "$clone"

# `make run` in its own process group, each output line stamped with the time it appeared.
setsid bash -c "make run SERVE_ARGS='--port $port' 2>&1 \
  | while IFS= read -r line; do printf '%s %s\n' \"\$(date +%s.%N)\" \"\$line\"; done > '$log'" &
server_pgid=$!

# Ready, then one streamed chat answer; the clone's own venv has httpx once set-up is done.
until [[ -x .venv/bin/python ]] && grep -q "prepare-models" "$log" 2>/dev/null; do
  if ! kill -0 "$server_pgid" 2>/dev/null; then cat "$log" || true; echo "make run died"; exit 1; fi
  sleep 2
done
probe="$work/probe.py"
cat > "$probe" <<'PY'
"""Waits for /ready, streams one chat answer, prints JSON with the times and the RSS."""
import json, sys, time
import httpx, psutil

port, make_pid, deadline = int(sys.argv[1]), int(sys.argv[2]), time.time() + 1200
base = f"http://127.0.0.1:{port}"
while True:
    try:
        if httpx.get(f"{base}/ready", timeout=2).status_code == 200:
            break
    except httpx.HTTPError:
        pass
    if time.time() > deadline or not psutil.pid_exists(make_pid):
        sys.exit("never became ready")
    time.sleep(0.5)
ready = time.time()
body = {"model": "auto", "stream": True, "max_tokens": 32,
        "messages": [{"role": "user", "content": "What is the capital of France?"}]}
sent = time.time()
first = None
with httpx.stream("POST", f"{base}/v1/chat/completions", json=body, timeout=120) as reply:
    reply.raise_for_status()
    for line in reply.iter_lines():
        if first is None and line.startswith("data: {"):
            choices = json.loads(line[len("data: "):]).get("choices") or [{}]
            if choices[0].get("delta", {}).get("content"):
                first = time.time()
done = time.time()
# The gateway is the `switchboard serve` process; vLLM's engine cores are its children.
root = psutil.Process(make_pid)
tree = [root, *root.children(recursive=True)]
gateway = next(p for p in tree if "serve" in p.cmdline() and "switchboard" in " ".join(p.cmdline()))
cores = gateway.children(recursive=True)
print(json.dumps({
    "ready_at": ready, "first_token_at": first, "first_token_latency_s": (first or done) - sent,
    "answer_s": done - sent, "gateway_rss_mib": gateway.memory_info().rss / 2**20,
    "engine_cores_rss_mib": sum(c.memory_info().rss for c in cores) / 2**20,
    "engine_cores": len(cores),
}))
PY
probe_out=$(.venv/bin/python "$probe" "$port" "$server_pgid")
stop_server

# The same routes.yaml on fake engines: the gateway's own footprint.
.venv/bin/python - "$work/fake.yaml" <<'PY'
import sys, yaml
config = yaml.safe_load(open("routes.yaml"))
for engine in config["engines"].values():
    engine["backend"] = "fake"
yaml.safe_dump(config, open(sys.argv[1], "w"))
PY
setsid .venv/bin/switchboard serve --config "$work/fake.yaml" --port "$port" \
  > "$work/fake.log" 2>&1 &
server_pgid=$!
fake_out=$(.venv/bin/python "$probe" "$port" "$server_pgid" 2>/dev/null || echo '{}')
stop_server

stamp() { grep -m1 -F -- "$1" "$log" | cut -d' ' -f1; }
t_setup_start=$(stamp "==> [1/3]")
t_models_start=$(stamp "==> preparing the built-in models")
t_serve_start=$(stamp "switchboard serve")
venv_mib=$(du -sm .venv | cut -f1)
models_mib=$(du -sm "$SWITCHBOARD_MODEL_CACHE" | cut -f1)

python3 - "$out" <<PY
import json, sys
probe, fake = json.loads('''$probe_out'''), json.loads('''$fake_out''')
start = $t_start
result = {
    "setup_s": $t_models_start - $t_setup_start,
    "clone_s": $t_setup_start - start,
    "models_s": $t_serve_start - $t_models_start,
    "ready_from_clone_s": probe["ready_at"] - start,
    "first_token_from_clone_s": probe["first_token_at"] - start,
    "first_token_latency_s": probe["first_token_latency_s"],
    "venv_mib": $venv_mib, "model_cache_mib": $models_mib,
    "gateway_rss_mib_real_engines": probe["gateway_rss_mib"],
    "engine_cores_rss_mib": probe["engine_cores_rss_mib"], "engine_cores": probe["engine_cores"],
    "gateway_rss_mib_fake_engines": fake.get("gateway_rss_mib"),
}
json.dump(result, open(sys.argv[1], "w"), indent=2)
rows = [
    ("git clone", f"{result['clone_s']:.1f} s"),
    ("set-up (make setup, empty pip cache)", f"{result['setup_s']:.0f} s"),
    ("model preparation (download + convert, empty cache)", f"{result['models_s']:.0f} s"),
    ("/ready, from git clone", f"{result['ready_from_clone_s']:.0f} s"),
    ("first streamed token, from git clone", f"{result['first_token_from_clone_s']:.0f} s"),
    ("first token latency of that request", f"{result['first_token_latency_s']:.2f} s"),
    (".venv on disk", f"{result['venv_mib']} MiB"),
    ("model cache on disk", f"{result['model_cache_mib']} MiB"),
    ("gateway RSS, both real engines up", f"{result['gateway_rss_mib_real_engines']:.0f} MiB"
     f" (+ {result['engine_cores_rss_mib']:.0f} MiB in its {result['engine_cores']} child processes)"),
    ("gateway RSS, fake engines", f"{result['gateway_rss_mib_fake_engines'] or float('nan'):.0f} MiB"),
]
print("| step | measured |\n| --- | --- |")
for name, value in rows:
    print(f"| {name} | {value} |")
PY
