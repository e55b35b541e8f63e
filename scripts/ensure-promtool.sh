#!/usr/bin/env bash
# Makes `promtool` (Prometheus's rule and exposition checker) available for the CI checks:
# nothing to do when it is on PATH; as root (CI), installs Debian's `prometheus` package, which
# ships it; otherwise says so and exits 0, and the checks that need promtool skip with a reason.
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then
  echo "promtool: $(promtool --version 2>&1 | head -1)"
  exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "promtool: not on PATH and not root, skipping install (apt-get install prometheus provides it)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "promtool: not on PATH and no apt-get, skipping install"
  exit 0
fi
echo "promtool: installing Debian's prometheus package"
apt-get update -qq
# The package's service is never started here (no init system in CI); only promtool is used.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
echo "promtool: $(promtool --version 2>&1 | head -1)"
