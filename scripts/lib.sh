# Shared by the scripts in this folder. Source it; it changes nothing by itself.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.cache/tools"

say() { printf '\n\033[1;35m==> %s\033[0m\n' "$*"; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Tauri's Linux build dependencies (see https://v2.tauri.app/start/prerequisites/).
BUILD_PACKAGES=(libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev pkg-config)
# What the tests add: a virtual display, the WebKit WebDriver, a private D-Bus and keyring.
# Plus Python's venv for the pinned Hermes CLI, and what checks the .deb and the release workflow.
# What running agents needs: every agent process starts in Clawboo's sandbox (bubblewrap); the
# .deb depends on it. Clawboo's loopback ports are carried into a sandbox by its own helper,
# clawboo-netns (see build_netns_helper), not by a system package.
SANDBOX_PACKAGES=(bubblewrap)
TEST_PACKAGES=(xvfb xauth webkit2gtk-driver dbus-x11 gnome-keyring libsecret-tools python3 python3-venv
  desktop-file-utils yamllint python3-yaml "${SANDBOX_PACKAGES[@]}")

# Installs the missing ones among the given Debian/Ubuntu packages (no-op elsewhere).
ensure_apt_packages() {
  [[ "$(uname -s)" == Linux ]] || return 0
  command -v dpkg-query >/dev/null || { say "Not Debian/Ubuntu: install the equivalents of: $*"; return 0; }
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  say "Installing system packages: ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

require_toolchains() {
  command -v cargo >/dev/null || die "Rust is missing: install it from https://rustup.rs"
  command -v node >/dev/null || die "Node.js 20 or newer is missing"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  ((major >= 20)) || die "Node.js $major is too old: Clawboo needs 20 or newer"
}

# npm ci only when the lock file changed since the last install.
ensure_ui_packages() {
  local stamp="$ROOT/ui/node_modules/.clawboo-lock"
  if [[ -f "$stamp" ]] && cmp -s "$ROOT/ui/package-lock.json" "$stamp"; then return 0; fi
  say "Installing UI packages (npm ci)"
  (cd "$ROOT/ui" && npm ci --no-audit --no-fund)
  cp "$ROOT/ui/package-lock.json" "$stamp"
}

TAURI_DRIVER_VERSION=2.1.0
ensure_tauri_driver() {
  # tauri-driver has no --version; cargo's install record says which version is there.
  if [[ -x "$TOOLS/bin/tauri-driver" ]] && grep -q "tauri-driver $TAURI_DRIVER_VERSION" "$TOOLS/.crates.toml" 2>/dev/null; then
    return 0
  fi
  say "Installing tauri-driver $TAURI_DRIVER_VERSION"
  # Unoptimised: it only passes WebDriver requests on, and it compiles beside the workspace's
  # build on a fresh machine (release: 37 s of CPU, debug: 21 s, measured 2026-12-06).
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked --debug --root "$TOOLS"
}

# The sandbox's network helper, clawboo-netns (src-tauri/netns; the binary target is declared by
# clawboo-engine), ships next to the app's binary as a Tauri sidecar (bundle.externalBin). Tauri
# needs it at src-tauri/binaries/clawboo-netns-<target triple> before it compiles the app, so the
# sidecar is named in an overlay config that only `tauri build`/`dev` get (plain `cargo build` and
# `cargo test` of the app never need the file). Linux only: no other OS uses it.
NETNS_CONFIG="$ROOT/src-tauri/tauri.netns.conf.json"
build_netns_helper() { # debug | release
  local flag=() triple
  [[ "$1" == release ]] && flag=(--release)
  triple="$(rustc -vV | sed -n 's/^host: //p')"
  # scripts/test's one build already made the debug helper (a workspace binary, --all-targets):
  # `-p clawboo-engine` alone would resolve other features and compile ~55 s of crates again.
  if [[ "$1" != debug || -z "${CLAWBOO_NETNS_BUILT:-}" ]]; then
    cargo build --quiet -p clawboo-engine --bin clawboo-netns "${flag[@]}"
  fi
  mkdir -p "$ROOT/src-tauri/binaries"
  cp "$(cargo_target_dir)/$1/clawboo-netns" "$ROOT/src-tauri/binaries/clawboo-netns-$triple"
}

# The Tauri CLI; `build`, `bundle` and `dev` on Linux get the sandbox's network helper first.
tauri_cli() {
  if [[ "$(uname -s)" == Linux ]] && [[ "${1:-}" == build || "${1:-}" == bundle || "${1:-}" == dev ]]; then
    local profile=release
    [[ "$1" == dev || " $* " == *" --debug "* ]] && profile=debug
    build_netns_helper "$profile"
    set -- "$@" --config "$NETNS_CONFIG"
  fi
  (cd "$ROOT" && "$ROOT/ui/node_modules/.bin/tauri" "$@")
}

# Where cargo puts builds (CARGO_TARGET_DIR when set, as in helper worktrees).
cargo_target_dir() { echo "${CARGO_TARGET_DIR:-$ROOT/target}"; }

# The app's version: the workspace's Cargo version, the one source the installers, the About page
# and `clawboo --version` all use (tauri.conf.json has none, so Tauri takes Cargo's).
app_version() {
  cargo metadata --no-deps --format-version 1 --manifest-path "$ROOT/Cargo.toml" |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "clawboo"))'
}
