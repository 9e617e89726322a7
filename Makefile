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

# PIP_CONSTRAINT: the isolated build of the compiled passes (setup.py) takes the same lxml as
# the environment it runs in
$(STAMP): pyproject.toml constraints.txt setup.py structcrawl/visible/_cwalk.pyx \
          structcrawl/core/_cindex.pyx
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	PIP_CONSTRAINT=$(CURDIR)/constraints.txt $(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: venv

test: venv lint browser redis
	$(BIN)/pytest -q

lint: venv
	$(BIN)/ruff check structcrawl spiders tests bench
	$(BIN)/ruff format --check structcrawl spiders tests bench
	$(BIN)/mypy structcrawl spiders

demo: venv browser
	$(PY) -m structcrawl.dev.demo --site fixtures/site --out $(OUT) --port $(PORT)

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

# Items and entities of one crawl of the real product pages agree (docs/entities-feeds-report.md)
.PHONY: bench-agreement
bench-agreement: venv
	$(PY) -m bench.bench_agreement

# Price, SKU and availability F1 on real product pages, by the benchmark's own scorer
# (../shared/corpus/products/score.py; docs/items.md)
.PHONY: bench-products
bench-products: venv
	$(PY) -m bench.bench_products

.PHONY: bench-crawl
bench-crawl: venv
	$(PY) -m bench.bench_crawl

# Where the two cores go while one crawl of the large pages (--corpus small: the shared ones)
# runs: each thread's CPU by role (crawl thread, its other threads, page workers, browser),
# beside the machine's idle time
.PHONY: bench-cores
bench-cores: venv
	$(PY) -m bench.bench_cores

# The distributed frontier under churn: a 1,000,000-URL frontier in a Redis of its own, workers
# killed and restarted, on 127.0.0.1 only (docs/scale.md)
.PHONY: bench-frontier
bench-frontier: venv redis
	$(PY) -m bench.bench_frontier

# Where the full crawl's time goes, by stage, under the py-spy sampling profiler (docs/speed.md)
.PHONY: bench-profile
bench-profile: venv
	$(BIN)/pip install -q -c constraints.txt py-spy
	$(PY) -m bench.profile_crawl

# A Chromium for the render handler (structcrawl/render): the one found (STRUCTCRAWL_CHROMIUM,
# Playwright's, /usr/bin/chromium), else Debian's `chromium` package when root; otherwise say
# what to do (docs/rendering.md).
.PHONY: browser
browser: venv
	@if ! $(PY) -m structcrawl.render; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "no Chromium found: installing Debian's chromium package"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	      && $(PY) -m structcrawl.render; \
	  else \
	    echo "no Chromium and not root: run 'sudo apt-get install chromium' or set" \
	      "STRUCTCRAWL_CHROMIUM; pages that need JavaScript will fail (README)" >&2; \
	  fi; \
	fi

.PHONY: bench-render
bench-render: venv browser
	$(PY) -m bench.bench_render

.PHONY: bench-validate
bench-validate: venv
	$(PY) -m bench.bench_validate

# schema.org Microdata and RDFa facts through the records, beside extruct (issue 23).
.PHONY: bench-fidelity
bench-fidelity: venv
	$(PY) -m bench.bench_fidelity

# Normalization and validation per page, in process, on the shared real pages.
.PHONY: bench-stages
bench-stages: venv
	$(PY) -m bench.bench_stages

# Load test: a 20,000-page crawl with the full pipeline, RSS sampled, the page ledger checked
# (docs/reliability.md). PAGES=2000 for a shorter run.
.PHONY: bench-load
bench-load: venv
	$(PY) -m bench.bench_load --pages $(or $(PAGES),20000)

# Deploy to scrapyd with scrapyd-deploy (scrapy.cfg [deploy] target; docs/deployment.md).
# Fails when scrapyd refuses the egg (scrapyd-deploy alone exits 0 on {"status": "error"}).
# TARGET=name picks [deploy:name]; SCRAPYD_URL, SCRAPYD_USERNAME, SCRAPYD_PASSWORD come from
# the environment.
TARGET ?= default
.PHONY: deploy
deploy: venv
	$(PY) -m structcrawl.ops.deploy $(TARGET)

# The Redis server the distributed-crawl tests start on 127.0.0.1 (README, "Distributed
# crawls"): Debian's redis-server package when missing and root; otherwise those tests skip.
.PHONY: redis
redis:
	@if ! command -v redis-server >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "no redis-server: installing Debian's redis-server package"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server; \
	  else \
	    echo "no redis-server and not root: run 'sudo apt-get install redis-server'" \
	      "(the distributed-crawl tests skip without it)" >&2; \
	  fi; \
	fi

# The manual (docs/, mkdocs.yml): docs/settings.md is generated from the code first.
.PHONY: settings-doc docs
settings-doc: venv
	$(PY) -m structcrawl.dev.settingsdoc

docs: venv settings-doc
	$(BIN)/mkdocs build --strict

# Article bodies, authors and dates on the hand-labelled real pages (fixtures/articles), and the
# body extraction's cost per page (docs/items.md, docs/speed.md)
.PHONY: bench-articles
bench-articles: venv
	$(PY) -m bench.bench_articles
