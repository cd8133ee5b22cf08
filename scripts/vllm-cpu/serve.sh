#!/usr/bin/env bash
# Start vLLM's OpenAI-compatible server on 127.0.0.1 for the tiny local model, in the background,
# with the settings tests/vllm uses (window 512, hermes tool parsing, 2 sequences).
# Usage: scripts/vllm-cpu/serve.sh MODEL_DIR [PORT] [extra `vllm serve` args...]
# Env:   SMF_VLLM_VENV (default ~/.cache/smf-router/vllm-venv), LOG, PIDFILE
# Waits (max 420 s: ~25 s on an idle machine, minutes on busy shared cores) for /health 200.  Stop with: kill "$(cat PIDFILE)"
set -euo pipefail
MODEL=${1:?model dir}
PORT=${2:-18888}
shift $(( $# >= 2 ? 2 : 1 ))
VENV=${SMF_VLLM_VENV:-$HOME/.cache/smf-router/vllm-venv}
T=${TMPDIR:-/tmp}
LOG=${LOG:-$T/vllm-$PORT.log}
PIDFILE=${PIDFILE:-$T/vllm-$PORT.pid}

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
t0=$(date +%s)
# --enforce-eager: no torch.compile (startup ~25 s instead of ~60 s, same outputs).
# --kv-cache-memory-bytes 64M: a small explicit KV cache; also skips the memory-profiling pass.
setsid nohup "$VENV/bin/vllm" serve "$MODEL" --host 127.0.0.1 --port "$PORT" \
  --served-model-name tiny --max-model-len 512 --max-num-seqs 2 \
  --enable-auto-tool-choice --tool-call-parser hermes \
  --enforce-eager --kv-cache-memory-bytes 64M "$@" > "$LOG" 2>&1 &
PID=$!
echo "$PID" > "$PIDFILE"
echo "vllm pid $PID, log $LOG"
for _ in $(seq 1 840); do
  sleep 0.5
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/health" || true)" = 200 ]; then
    echo "healthy after $(( $(date +%s) - t0 )) s"; exit 0
  fi
  if ! kill -0 "$PID" 2>/dev/null; then echo "vllm exited; tail of $LOG:"; tail -30 "$LOG"; exit 1; fi
done
echo "not healthy after 420 s"; exit 1
