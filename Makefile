# Micro Relay: `make demo` runs the main job on an embedded default; `make test` passes the tests.
#
# Which Python: PYTHON=... if given; else the active virtual environment's python3; else a project
# environment in .venv/, made on first use from BASE_PYTHON (python3) and reused afterwards. Nothing is
# installed into the interpreter of the system or of the user.
BASE_PYTHON ?= python3
VENV ?= .venv
ifeq ($(origin PYTHON),undefined)
ifneq ($(VIRTUAL_ENV),)
PYTHON := $(VIRTUAL_ENV)/bin/python
else
PYTHON := $(VENV)/bin/python
ENVIRONMENT := $(VENV)/.ready
endif
endif
PIP ?= $(PYTHON) -m pip
DEMO_OUT ?= demo-out

.PHONY: setup setup-test demo test test-long bench bench-cortex-m qemu-plugin-header

# The project environment: one line naming the package to install when this Python cannot make one.
$(VENV)/.ready:
	@$(BASE_PYTHON) -m venv $(VENV) >/dev/null 2>&1 || { \
	    echo "error: $(BASE_PYTHON) -m venv failed: install the venv module (Debian/Ubuntu: apt-get install python3-venv), or run with PYTHON=/path/to/python" >&2; \
	    exit 1; }
	@touch $@

setup: $(ENVIRONMENT)
	$(PIP) install -q -e .

setup-test: setup
	$(PIP) install -q -r requirements-test.txt

# Generate a small model of our own, compile it, build and run the C on the host, print outputs and plan.
demo: setup
	$(PYTHON) -m micro_relay.demo --out $(DEMO_OUT)

# The test command CI runs. Exits non-zero when a test fails or when no test ran.
test: setup-test
	$(PYTHON) -m pytest -q -p no:cacheprovider tests

# Long sweeps: hypothesis at 500 examples per property.
test-long: setup-test
	MICRO_RELAY_HYPOTHESIS_PROFILE=long $(PYTHON) -m pytest -q -p no:cacheprovider tests

bench: setup-test
	$(PYTHON) benchmarks/host_vs_tflm.py --out BENCHMARKS.md
	$(PYTHON) benchmarks/cortex_m.py --out BENCHMARKS-cortex-m.md
	printf '\n' >> BENCHMARKS.md && cat BENCHMARKS-cortex-m.md >> BENCHMARKS.md && rm BENCHMARKS-cortex-m.md
	$(PYTHON) benchmarks/onnx_vs_onnxruntime.py --out BENCHMARKS-onnx.md
	printf '\n' >> BENCHMARKS.md && cat BENCHMARKS-onnx.md >> BENCHMARKS.md && rm BENCHMARKS-onnx.md
	$(PYTHON) benchmarks/quantized.py --out BENCHMARKS-quantized.md
	printf '\n' >> BENCHMARKS.md && cat BENCHMARKS-quantized.md >> BENCHMARKS.md && rm BENCHMARKS-quantized.md
	$(PYTHON) benchmarks/compile_cost.py --out BENCHMARKS-compile-cost.md && printf '\n' >> BENCHMARKS.md && cat BENCHMARKS-compile-cost.md >> BENCHMARKS.md && rm BENCHMARKS-compile-cost.md

# Every shared model on emulated Cortex-M4 and M7 (QEMU, -icount): instructions per inference, flash, RAM.
bench-cortex-m: setup-test
	$(PYTHON) benchmarks/cortex_m.py --out BENCHMARKS-cortex-m.md

# QEMU's plugin header, for the bench's cycle estimate (bench/cycles): from the installed QEMU's Debian source.
qemu-plugin-header: setup
	scripts/qemu-plugin-header "$$(PYTHONPATH=scripts $(PYTHON) -c 'from micro_relay.bench.cycles.plugin import header_cache; print(header_cache("qemu-system-arm"))')"
