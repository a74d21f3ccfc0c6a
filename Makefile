# ndncc — two commands on a fresh machine:
#   make demo   creates .venv, builds, reproduces seed 002 (sf-clock, quick grid) with figures,
#               and prints where the report is
#   make test   builds and runs every Rust and Python test
# After either, the CLI is at .venv/bin/ndncc.

VENV    := .venv
PY      := $(VENV)/bin/python
NDNCC   := $(VENV)/bin/ndncc
STAMP   := $(VENV)/.ndncc-build
SOURCES := $(shell find crates python -name '*.rs' -o -name '*.py' -o -name '*.toml' -o -name 'Cargo.toml') Cargo.toml pyproject.toml

.PHONY: demo test build browser tools lint fmt bench clean

$(VENV)/bin/maturin:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet "maturin>=1.7,<2"

# Release build of the native module, installed editable with the runtime and test dependencies.
$(STAMP): $(VENV)/bin/maturin $(SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --extras test --quiet
	@touch $(STAMP)

build: $(STAMP)

demo: build
	$(NDNCC) reproduce sf-clock --quick --fresh --out results/sf-clock
	@echo ""
	@echo "Demo done: the paper's numbers beside ours in results/sf-clock/report.md"
	@echo "(comparison.csv and the re-drawn figures are beside it):"
	@ls results/sf-clock/*.png | sed 's/^/  /'

# Headless Chromium (Debian's package) for the HTML report's browser test; best effort: where it
# cannot be installed the test is skipped with a message.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	    >/dev/null; } || \
	  echo "note: Chromium is not installed; the HTML report's browser test will be skipped"

# ndnd (the Go NDN forwarder, github.com/named-data/ndnd) for the interop tests and `ndncc bench
# forwarder`, best effort: built once into .tools/ndnd with `go get` + `go build` (`go install
# …@latest` fails: the module proxy refuses the version list); ≈ 2 min cold, nothing once built.
# When it cannot be built the reason goes to .tools/ndnd/FAILED and those tests skip naming it.
GO           ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
NDND_VERSION := v1.5.3
NDND         := .tools/ndnd/ndnd

tools: $(NDND)

$(NDND):
	@mkdir -p .tools/ndnd && rm -f .tools/ndnd/FAILED
	@cd .tools/ndnd && if [ ! -x "$(GO)" ]; then \
	  echo "no Go toolchain (go on the PATH or /usr/local/go/bin/go)" > FAILED; \
	else \
	  echo "building ndnd $(NDND_VERSION) into $(NDND) (once)"; \
	  { [ -f go.mod ] || "$(GO)" mod init ndncc-tools; } > build.log 2>&1 && \
	  "$(GO)" get github.com/named-data/ndnd/cmd/ndnd@$(NDND_VERSION) >> build.log 2>&1 && \
	  "$(GO)" build -o ndnd github.com/named-data/ndnd/cmd/ndnd >> build.log 2>&1 || \
	  { echo "building ndnd $(NDND_VERSION) with $(GO) failed: $$(tail -n 1 build.log) (log: .tools/ndnd/build.log)" > FAILED; rm -f ndnd; }; \
	fi; [ ! -f FAILED ] || echo "note: $$(cat FAILED); the interop tests will be skipped"

# The Rust tests build with the release profile, so they reuse the dependencies the release build
# of the native module just compiled (a debug profile would compile the whole workspace a second
# time); cargo's "Compiling …" lines are the progress of that build, then the tests run quietly.
test: build browser tools
	cargo test --workspace --release --no-run
	cargo test --workspace --release --quiet
	cargo test --release --quiet -p ndncc-sim --features event-cost --test event_cost
	$(PY) -m pytest -q

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo clippy -p ndncc-sim --features event-cost --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests

fmt:
	cargo fmt --all
	$(VENV)/bin/ruff format python tests

bench: build
	$(NDNCC) bench

clean:
	cargo clean
	rm -rf $(VENV) results
