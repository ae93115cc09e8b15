#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian bookworm machine that has only the
# toolchains: the peer tools the cross-tool tests run (GNU gzip, pigz, ISA-L igzip,
# libdeflate-gzip, Python, compress), the run-time libraries the benchmark harness loads (system zlib,
# ISA-L), a font for the benchmark charts, and cargo-fuzz for the fuzz smoke runs.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# zlib1g-dev also ships zlib's own example programs (example.c, minigzip.c, zpipe.c, zran.c,
# gun.c, gzappend.c, gzjoin.c), which the drop-in tests build against our libz.so. CPython's
# test suite (test_zlib, test_gzip, test_zipfile), a JDK and git are the unmodified programs the
# drop-in is tested under. ncompress's compress writes the .Z files the CLI must read as gzip
# does; tabix's bgzip writes the BGZF files (genomics' blocked gzip) it decodes on every engine.
PACKAGES=(gzip pigz isal libisal2 libdeflate-tools zlib1g zlib1g-dev python3 fonts-dejavu-core
          pkg-config cmake git gcc default-jdk-headless ncompress tabix)
# Debian's python3 needs its test package; a python3 from elsewhere (pyenv) ships its own.
if ! python3 -c 'import test.test_zlib' >/dev/null 2>&1; then
  PACKAGES+=("libpython$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3.11)-testsuite")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# cargo-fuzz needs a nightly toolchain; both are optional for the rest of the suite.
if rustup toolchain list 2>/dev/null | grep -q nightly; then
  if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo install --locked cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz
  fi
fi
echo "test dependencies ready"
