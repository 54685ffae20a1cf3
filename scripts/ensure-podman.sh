#!/usr/bin/env bash
# Makes sure Debian's podman (with runc) is installed, for packages/deploy-tests' image test, which builds
# deploy/Containerfile on a local base and runs it. Called by .ci/run. Needs root (or a working sudo) and apt.
# Exits 0 without podman when it cannot install it: the test then says so in one line (and .ci/run does not
# require the image to run).
set -euo pipefail
if command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-podman: podman is missing and this machine has no apt-get; the image test will only check the definition" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "ensure-podman: podman is missing; run as root: apt-get install -y podman runc fuse-overlayfs uidmap slirp4netns" >&2
    exit 1
  fi
fi
echo "ensure-podman: installing Debian's podman and runc (for the container image test)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends podman crun runc fuse-overlayfs uidmap slirp4netns >&2
command -v podman >/dev/null
