#!/usr/bin/env bash
# Makes sure Debian's `chromium` is installed at /usr/bin/chromium, for the /docs browser test
# (apps/api/test/docs-page.test.ts drives it with playwright-core; no browser is ever downloaded by npm).
# Called by .ci/run, and by the test itself when the binary is missing. Needs root (or a working sudo) and apt.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium is missing and this machine has no apt-get; install Chromium by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "ensure-chromium: /usr/bin/chromium is missing; run as root: apt-get update && apt-get install -y chromium" >&2
    exit 1
  fi
fi
echo "ensure-chromium: installing Debian's chromium package (for the /docs browser test)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
test -x /usr/bin/chromium
