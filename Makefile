# structcrawl: every target sets itself up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
PORT   ?= 8765
OUT    ?= output

.PHONY: venv install test lint demo serve fixtures-regen conformance clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[test]'
	touch $(STAMP)

install: venv

test: venv lint
	$(BIN)/pytest -q

lint: venv
	$(BIN)/ruff check structcrawl spiders tests bench
	$(BIN)/mypy structcrawl spiders

demo: venv
	$(PY) -m structcrawl.demo --site fixtures/site --out $(OUT) --port $(PORT)

# Re-run extraction over fixtures/<source>/<case>/ and rewrite each expected.json for review (git diff).
fixtures-regen: venv
	$(PY) -m tests.fixtures_regen

conformance: venv
	$(BIN)/pytest -q -m conformance -s

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache

.PHONY: bench-extract
bench-extract: venv
	$(PY) -m bench.bench_extract
