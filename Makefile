# The targets are the commands the README shows. `make demo` and `make test` install the Debian
# packages they need first (with sudo when not root), so they work on a fresh machine that has
# the Swift toolchain on PATH.

SWIFT ?= swift
PREFIX ?= /usr/local
DEMO_DIR ?= $(CURDIR)/demo-state

# Build: pkg-config and the C libraries' headers. Tests: tools the end-to-end tests drive.
BUILD_PACKAGES := pkg-config libnfc-dev libgpiod-dev libasound2-dev libsndfile1-dev libmosquitto-dev libssl-dev \
  libcrypt-dev libmicrohttpd-dev tzdata
TEST_PACKAGES := $(BUILD_PACKAGES) util-linux pulseaudio pulseaudio-utils libasound2-plugins alsa-utils mosquitto mosquitto-clients strace \
  python3 tmux bash zsh fish

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps test-deps demo test lint format clean bench bench-cadence bench-counts fuzz fuzz-long check-fuzz soak sanitize sanitize-thread check-web bench-web web-icons

all: build

# Installs missing packages only; `apt-get update` runs once, and only when something is missing.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi
endef

deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

# The demo form of the product: no reader (--simulate), state, config and socket in a local
# folder. It runs in the foreground; drive it from a second terminal (README "Try it").
demo: build
	@mkdir -p $(DEMO_DIR)
	@[ -f $(DEMO_DIR)/puckd.conf ] || printf '%s\n' \
	  '# Demo settings: quick retries so the loop is easy to watch.' \
	  '[audio]' 'device = default' 'start_volume = 40%' 'ramp = 10s' \
	  '[enforcement]' 'retry_delay = 10s' 'stop_after = 5s' 'ring_timeout = 2min' > $(DEMO_DIR)/puckd.conf
	@echo "puckd is starting in SIMULATED mode. In another terminal:"
	@echo "  export PUCK_SOCKET=$(DEMO_DIR)/puckd.sock PATH=$(CURDIR)/.build/debug:\$$PATH"
	@echo "  puckctl status"
	$(CURDIR)/.build/debug/puckd --simulate --config $(DEMO_DIR)/puckd.conf \
	  --state-dir $(DEMO_DIR)/state --socket $(DEMO_DIR)/puckd.sock

test: test-deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build --parallel

# The web app in a real browser, as CI runs it: Debian's Chromium and chromium-driver (installed
# when missing), selenium from PyPI in a venv under .build/; about a minute (.ci/check-web).
check-web: build
	.ci/check-web

# The crash-churn soak: 500 SIGKILLs of the real daemon at random moments, requests in flight
# (CI runs 30 of them in `make test`); about 8 minutes.
soak: test-deps
	$(SWIFT) build --build-tests
	PUCK_SOAK_KILLS=$${PUCK_SOAK_KILLS:-500} $(SWIFT) test --skip-build --filter CrashChurnTests/churn

# The suite under AddressSanitizer and under ThreadSanitizer, as CI runs them
# (docs/RELIABILITY.md "Sanitizers").
sanitize: test-deps
	.ci/check-sanitizers

sanitize-thread: test-deps
	.ci/check-thread-sanitizer

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests

format:
	$(SWIFT) format -i -r Package.swift Sources Tests

clean:
	rm -rf .build

# Figures, not assertions (docs/BENCHMARKS.md): the benchmark of record (a table against the
# targets with its peers, .build/bench/figures.md and latency-cdf.svg), then the catch-up after
# a long downtime. Uses a release build; about 4 minutes. bench/puckd-bench.py is the older
# quick look (a few samples of each path).
bench: deps
	$(call apt_install,libnfc-examples coreutils)
	$(SWIFT) build -c release
	python3 bench/record.py .build/release
	python3 bench/catch-up-bench.py .build/release

# The web app's PNG icons (home screens want PNG: iOS ignores an SVG), made from its SVG with
# librsvg's rsvg-convert (installed when missing) and checked in, so a build needs no image tool.
# Run after changing Sources/PuckWeb/Icons/icon.svg, and commit the PNGs.
WEB_ICONS := Sources/PuckWeb/Icons
web-icons:
	$(call apt_install,librsvg2-bin)
	rsvg-convert -w 180 -h 180 $(WEB_ICONS)/icon.svg -o $(WEB_ICONS)/icon-180.png
	rsvg-convert -w 192 -h 192 $(WEB_ICONS)/icon.svg -o $(WEB_ICONS)/icon-192.png
	rsvg-convert -w 512 -h 512 $(WEB_ICONS)/icon.svg -o $(WEB_ICONS)/icon-512.png

# The web app's figures against its targets (issue 25: p95 page time, page weight, idle CPU and
# RSS), the release build as deployed (static Swift runtime); about a minute after it
# (bench/web-bench.py, docs/BENCHMARKS.md "The web app").
bench-web: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product puckd
	$(SWIFT) build $(RELEASE_FLAGS) --product puckctl
	$(SWIFT) build $(RELEASE_FLAGS) --product puck-web
	python3 bench/web-bench.py .build/release

# How the reader's poll cadence was chosen: puckd at several [reader] poll_interval values,
# nfc-poll, and the chip-waits design, on the emulated PN532 (docs/BENCHMARKS.md "Detection";
# about 6 minutes).
bench-cadence: deps
	$(call apt_install,libnfc-examples coreutils)
	$(SWIFT) build -c release
	python3 bench/cadence.py .build/release
	python3 bench/chip-waits.py .build/release

# Instruction counts (callgrind) that do not move with the machine's load, recorded with the
# commit in .build/bench/counts.md; about a minute under valgrind.
bench-counts: deps
	$(call apt_install,valgrind)
	$(SWIFT) build -c release
	python3 bench/counts.py .build/release

# ---- Deployment: release build, install, Debian package (packaging/README.md) ----------------
# `make release` as yourself, then `sudo make install` (PREFIX=/usr/local by default), or
# `make deb` for .build/deploy/puckalarm_VERSION_ARCH.deb (PREFIX=/usr). The files systemd and
# udev read go to the system directories whatever PREFIX is: they do not look in /usr/local.
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/puckalarm
SYSCONFDIR ?= /etc
# Units and udev rules: /lib up to bookworm (Debian's moratorium on moving files between / and
# /usr during the /usr merge), /usr/lib from trixie on (trixie's lintian flags /lib as an
# "aliased-location" error). Chosen by the release make runs on, like the .deb's Depends.
DEBIAN_CODENAME := $(shell . /etc/os-release 2>/dev/null && echo $$VERSION_CODENAME)
SYSTEM_LIBDIR := $(if $(filter stretch buster bullseye bookworm,$(DEBIAN_CODENAME)),/lib,/usr/lib)
UNITDIR ?= $(SYSTEM_LIBDIR)/systemd/system
UDEVRULESDIR ?= $(SYSTEM_LIBDIR)/udev/rules.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
# Where Debian's shells look for completions (zsh reads vendor-completions only under /usr).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
STATEDIR ?= /var/lib/puckalarm
STRIP ?= strip
# PURGE=1 makes `make uninstall` also remove the state (alarms, history, pairing) and the config.
PURGE ?=

# Static Swift runtime so the board needs only Debian's libraries; no $ORIGIN run path. Linked
# by lld (both toolchains ship it) with the relocations read-only after start-up (RELRO, bound
# at once), as Debian's hardening asks: trixie's swiftlang links with GNU ld by default, which
# with the static Swift runtime leaves out the RELRO segment even when asked (lintian:
# hardening-no-relro); lld makes it.
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld \
  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
RELEASE_BIN := .build/release
DEPLOY_DIR := .build/deploy
DEB_OUT ?= $(DEPLOY_DIR)
DEPLOY_PACKAGES := dpkg-dev debhelper lintian systemd man-db gpiod
DEPLOY_DOCS := README.md docs/DESIGN.md hardware/README.md hardware/gpio.md hardware/pinmap.md \
  systemd/README.md udev/README.md

.PHONY: release install uninstall deb deb-arm64 deploy-deps check-deploy check-trixie-deb check-systemd check-arm64

deploy-deps:
	$(call apt_install,$(BUILD_PACKAGES) $(DEPLOY_PACKAGES))

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# The commented default config, taken from DockConfig.defaultFileText (never a hand copy).
$(DEPLOY_DIR)/puckd.conf: Sources/PuckCore/Config/DockConfig+DefaultFile.swift packaging/extract-default-config
	@mkdir -p $(DEPLOY_DIR)
	packaging/extract-default-config $< > $@.tmp && mv $@.tmp $@

install: $(DEPLOY_DIR)/puckd.conf
	@for f in puckd puckctl puck-reader puck-web; do [ -x $(RELEASE_BIN)/$$f ] || { \
	  echo "no $(RELEASE_BIN)/$$f: run 'make release' first (as yourself), then 'sudo make install'"; exit 1; }; done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR) \
	  $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSUSERSDIR) \
	  $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/puckalarm \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(RELEASE_BIN)/puckd $(DESTDIR)$(SBINDIR)/puckd
	install -m 0755 $(RELEASE_BIN)/puckctl $(DESTDIR)$(BINDIR)/puckctl
	install -m 0755 $(RELEASE_BIN)/puck-reader $(DESTDIR)$(BINDIR)/puck-reader
	install -m 0755 $(RELEASE_BIN)/puck-web $(DESTDIR)$(SBINDIR)/puck-web
	$(STRIP) --remove-section=.comment --remove-section=.note --strip-unneeded \
	  $(DESTDIR)$(SBINDIR)/puckd $(DESTDIR)$(BINDIR)/puckctl $(DESTDIR)$(BINDIR)/puck-reader \
	  $(DESTDIR)$(SBINDIR)/puck-web
	sed -e 's|/usr/sbin/puckd|$(SBINDIR)/puckd|' systemd/puckd.service > $(DESTDIR)$(UNITDIR)/puckd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/puckd.service
	sed -e 's|/usr/bin/puck-reader|$(BINDIR)/puck-reader|' systemd/puck-reader.service > $(DESTDIR)$(UNITDIR)/puck-reader.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/puck-reader.service
	sed -e 's|/usr/sbin/puck-web|$(SBINDIR)/puck-web|' systemd/puck-web.service > $(DESTDIR)$(UNITDIR)/puck-web.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/puck-web.service
	install -m 0644 systemd/puckd-remote-readers.conf $(DESTDIR)$(DOCDIR)/puckd-remote-readers.conf
	install -m 0644 udev/60-puckalarm.rules $(DESTDIR)$(UDEVRULESDIR)/60-puckalarm.rules
	install -m 0644 systemd/puckalarm.sysusers $(DESTDIR)$(SYSUSERSDIR)/puckalarm.conf
	install -m 0644 systemd/puckalarm.tmpfiles $(DESTDIR)$(TMPFILESDIR)/puckalarm.conf
	@# Completions, written by the puckctl just built from its own command table.
	$(RELEASE_BIN)/puckctl completion bash > $(DESTDIR)$(BASHCOMPDIR)/puckctl
	$(RELEASE_BIN)/puckctl completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_puckctl
	$(RELEASE_BIN)/puckctl completion fish > $(DESTDIR)$(FISHCOMPDIR)/puckctl.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/puckctl $(DESTDIR)$(ZSHCOMPDIR)/_puckctl $(DESTDIR)$(FISHCOMPDIR)/puckctl.fish
	gzip -9nc man/puckd.8 > $(DESTDIR)$(MANDIR)/man8/puckd.8.gz
	gzip -9nc man/puckctl.1 > $(DESTDIR)$(MANDIR)/man1/puckctl.1.gz
	gzip -9nc man/puck-reader.8 > $(DESTDIR)$(MANDIR)/man8/puck-reader.8.gz
	gzip -9nc man/puck-web.8 > $(DESTDIR)$(MANDIR)/man8/puck-web.8.gz
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/puckd.8.gz $(DESTDIR)$(MANDIR)/man1/puckctl.1.gz \
	  $(DESTDIR)$(MANDIR)/man8/puck-reader.8.gz $(DESTDIR)$(MANDIR)/man8/puck-web.8.gz
	for f in $(DEPLOY_DOCS); do \
	  install -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$(echo $$f | sed 's|/README.md$$|.md|; s|^docs/||; s|^hardware/||'); done
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/puckalarm/puckd.conf ]; then \
	  echo "kept $(DESTDIR)$(SYSCONFDIR)/puckalarm/puckd.conf (the default is in $(DEPLOY_DIR)/puckd.conf)"; \
	else install -m 0644 $(DEPLOY_DIR)/puckd.conf $(DESTDIR)$(SYSCONFDIR)/puckalarm/puckd.conf; fi
	@# On the live system (no DESTDIR): the group, the directories, udev and systemd reloads.
	@if [ -z "$(DESTDIR)" ]; then \
	  if command -v systemd-sysusers >/dev/null; then systemd-sysusers puckalarm.conf; \
	  else getent group puckalarm >/dev/null || groupadd --system puckalarm; fi; \
	  command -v systemd-tmpfiles >/dev/null && systemd-tmpfiles --create puckalarm.conf || true; \
	  if [ -d /run/udev ]; then udevadm control --reload-rules && udevadm trigger --subsystem-match=gpio --action=change || true; fi; \
	  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	  echo "installed. Set [reader] and [audio] in $(SYSCONFDIR)/puckalarm/puckd.conf, then: systemctl enable --now puckd"; \
	  echo "the web app: puckctl web password, [web] enabled = yes, then: systemctl enable --now puck-web"; \
	fi

uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl disable --now puckd.service puck-web.service 2>/dev/null || true; fi
	rm -f $(DESTDIR)$(SBINDIR)/puckd $(DESTDIR)$(BINDIR)/puckctl $(DESTDIR)$(BINDIR)/puck-reader \
	  $(DESTDIR)$(SBINDIR)/puck-web $(DESTDIR)$(UNITDIR)/puck-web.service $(DESTDIR)$(MANDIR)/man8/puck-web.8.gz \
	  $(DESTDIR)$(UNITDIR)/puckd.service $(DESTDIR)$(UNITDIR)/puck-reader.service \
	  $(DESTDIR)$(UDEVRULESDIR)/60-puckalarm.rules $(DESTDIR)$(SYSUSERSDIR)/puckalarm.conf \
	  $(DESTDIR)$(TMPFILESDIR)/puckalarm.conf $(DESTDIR)$(MANDIR)/man8/puckd.8.gz \
	  $(DESTDIR)$(MANDIR)/man1/puckctl.1.gz $(DESTDIR)$(MANDIR)/man8/puck-reader.8.gz \
	  $(DESTDIR)$(BASHCOMPDIR)/puckctl \
	  $(DESTDIR)$(ZSHCOMPDIR)/_puckctl $(DESTDIR)$(FISHCOMPDIR)/puckctl.fish
	rm -rf $(DESTDIR)$(DOCDIR)
	@if [ "$(PURGE)" = 1 ]; then \
	  echo "PURGE=1: removing $(DESTDIR)$(STATEDIR) and $(DESTDIR)$(SYSCONFDIR)/puckalarm"; \
	  rm -rf $(DESTDIR)$(STATEDIR) $(DESTDIR)$(SYSCONFDIR)/puckalarm; \
	else \
	  echo "kept $(DESTDIR)$(STATEDIR) (alarms, history, pairing) and $(DESTDIR)$(SYSCONFDIR)/puckalarm (puckd.conf, web-password); PURGE=1 removes them"; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/udev ]; then udevadm control --reload-rules || true; fi

# The Debian package: dpkg-buildpackage over debian/ (dh: `make release`, then `make install
# DESTDIR=debian/puckalarm PREFIX=/usr`), the .deb, .buildinfo and .changes in $(DEB_OUT).
# Build-Depends names Debian's swiftlang (trixie on). Where it is not installed (bookworm,
# which has none, with the swift.org toolchain on PATH) the build dependencies are not checked
# (-d): `deb` installs the others itself first (packaging/README.md, "Building").
DEB_VERSION = $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/PuckCore/ProductVersion.swift)
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_CHECK_BUILDDEPS = $(if $(shell dpkg-query -W -f='$${Status}' swiftlang 2>/dev/null | grep 'ok installed'),,-d)
deb: deps
	$(call apt_install,dpkg-dev debhelper)
	@command -v $(SWIFT) >/dev/null || { echo "no $(SWIFT) on PATH: install swiftlang (trixie) or a swift.org toolchain"; exit 1; }
	@mkdir -p $(DEB_OUT)
	PUCK_DEB_DIR=$(abspath $(DEB_OUT)) SWIFT=$(SWIFT) dpkg-buildpackage -b --no-sign $(DEB_CHECK_BUILDDEPS) \
	  --buildinfo-option=-u$(DEB_OUT) --changes-option=-u$(DEB_OUT) \
	  --buildinfo-file=$(DEB_OUT)/puckalarm_$(DEB_VERSION)_$(DEB_ARCH).buildinfo \
	  --changes-file=$(DEB_OUT)/puckalarm_$(DEB_VERSION)_$(DEB_ARCH).changes
	@echo $(DEB_OUT)/puckalarm_$(DEB_VERSION)_$(DEB_ARCH).deb

# The arm64 package for a Raspberry Pi: `make deb` run in a trixie arm64 root under qemu-user
# emulation with Debian's swiftlang, installed there and smoke-tested (.ci/check-arm64), copied to
# .build/deploy/arm64/. Root only. The root is kept in $PUCK_CI_CACHE (/var/cache/puckalarm-ci).
# Slow: 18 to 62 minutes under emulation on a shared 2-core machine, and the root about 15 more from
# nothing (packaging/README.md).
deb-arm64:
	$(call apt_install,debootstrap debian-archive-keyring)
	.ci/check-arm64 release

# What CI runs for arm64: a debug build of puckd and puckctl in that root and the same smoke test.
check-arm64:
	$(call apt_install,debootstrap debian-archive-keyring)
	.ci/check-arm64 debug

# Everything .ci/check-deploy checks (release build, ldd, unit, .deb, lintian, install/remove).
check-deploy:
	.ci/check-deploy

# The trixie package: built, installed, run and purged in a debootstrapped trixie root (root).
check-trixie-deb:
	.ci/check-trixie-deb

# Coverage-guided fuzzing of the parsers that read outside input (fuzz/README.md). Not part of
# `make test`: it runs for minutes and needs nothing the tests do not.
fuzz:
	fuzz/run 120

# Every target until it has run 10^7 inputs, two at a time (hours; docs/RELIABILITY.md).
fuzz-long:
	fuzz/long 10000000

# What CI runs: every target 12 s from the checked-in seeds, and the findings' reproducers.
check-fuzz:
	.ci/check-fuzz

# The packaged unit under a real systemd (systemd-nspawn); root only; about 4 minutes from
# nothing, 1.5 reusing its root and package (docs/RELIABILITY.md).
check-systemd:
	$(call apt_install,systemd-container debootstrap)
	.ci/check-systemd
