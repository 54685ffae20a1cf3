#!/usr/bin/env bash
# Makes sure Debian's `git` (with git-http-backend) is installed, for the git sync tests: they serve
# repositories over smart HTTP with git's own http-backend on loopback (packages/git-sync/src/testing).
# The service itself never needs git (it pushes with isomorphic-git). Called by .ci/run. Needs root (or a
# working sudo) and apt when git is missing.
set -euo pipefail
if command -v git >/dev/null 2>&1 && [ -x "$(git --exec-path)/git-http-backend" ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-git: git (with git-http-backend) is missing and this machine has no apt-get; install git by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "ensure-git: git is missing; run as root: apt-get update && apt-get install -y git" >&2
    exit 1
  fi
fi
echo "ensure-git: installing Debian's git package (for the git sync tests)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends git >&2
[ -x "$(git --exec-path)/git-http-backend" ]
