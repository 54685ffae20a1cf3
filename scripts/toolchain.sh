# Sourced by ./run and .ci/run. Puts a Node >= 22.17 and the pinned pnpm on PATH, installing them from the
# npm registry into .tools/ when needed, so a fresh machine needs nothing but its own node and npm.
NODE_WANTED="24.9.0"
PNPM_WANTED="10.34.8"
tools="$root/.tools"

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=17)?0:1)'
}

ensure_node() {
  if node_ok; then return; fi
  local arch; case "$(uname -m)" in x86_64) arch=x64;; aarch64|arm64) arch=arm64;; *) arch="$(uname -m)";; esac
  local os; os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  local pkg="node-$os-$arch" dir="$tools/node-$NODE_WANTED"
  if [ ! -x "$dir/node_modules/$pkg/bin/node" ]; then
    echo "toolchain: node $(node --version 2>/dev/null || echo none) is older than 22.17; fetching Node $NODE_WANTED ($pkg) from the npm registry into .tools/" >&2
    mkdir -p "$dir"
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "$pkg@$NODE_WANTED" >&2
  else
    echo "toolchain: using Node $NODE_WANTED from .tools/ (the node on PATH is older than 22.17)" >&2
  fi
  export PATH="$dir/node_modules/$pkg/bin:$PATH"
}

ensure_pnpm() {
  local dir="$tools/pnpm-$PNPM_WANTED"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    mkdir -p "$dir"
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "pnpm@$PNPM_WANTED" >&2
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

ensure_installed() {
  ensure_node
  ensure_pnpm
  # pnpm install is a no-op when the lockfile and node_modules agree, so it is cheap to always run.
  pnpm install --frozen-lockfile --prefer-offline --reporter=silent >&2
}

ensure_built() {
  pnpm run build >&2
}

# Installs unless node_modules is newer than the lockfile and every manifest (pnpm install is a no-op then,
# but still takes seconds).
install_unless_current() {
  ensure_node
  ensure_pnpm
  if [ -f node_modules/.modules.yaml ] && [ -z "$(find pnpm-lock.yaml package.json apps packages -maxdepth 2 \
      -name 'package.json' -newer node_modules/.modules.yaml -print -quit 2>/dev/null)" ] &&
      [ ! pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
    return 0
  fi
  ensure_installed
}

# Builds unless $1 exists and no source, manifest or lockfile is newer than it (a current build starts at once).
build_unless_current() {
  local built="$1"
  if [ -f "$built" ] && [ -z "$(find apps packages pnpm-lock.yaml \
      \( -path '*/node_modules' -o -path '*/dist' -o -path '*/test-results' -o -path '*/.turbo' \) -prune -o \
      \( -name '*.ts' -o -name '*.tsx' -o -name 'package.json' -o -name 'pnpm-lock.yaml' \) -newer "$built" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  ensure_built
}

ensure_node
ensure_pnpm
