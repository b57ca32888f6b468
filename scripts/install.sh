#!/usr/bin/env bash
# make install / make uninstall: the binary, the man pages and completions generated from it, and
# the systemd user units. BIN (default .build/release/datebook), PREFIX (default /usr/local) and
# DESTDIR (a staging root for packagers) come from the environment.
#
#   scripts/install.sh install     # every file is written beside its target first, then renamed;
#                                  # when any write fails, everything written is taken back
#   scripts/install.sh uninstall   # removes exactly the files install writes
#   scripts/install.sh list        # prints those files
set -euo pipefail

action=${1:-}
BIN=${BIN:-.build/release/datebook}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
root="$DESTDIR$PREFIX"
here=$(cd "$(dirname "$0")/.." && pwd)

# Installed path (relative to PREFIX) and mode, one a line.
files=(
  "bin/datebook 755"
  "bin/datebook-notify-wait 755"
  "share/man/man1/datebook.1 644"
  "share/man/man5/datebook-config.5 644"
  "share/bash-completion/completions/datebook 644"
  "share/zsh/site-functions/_datebook 644"
  "share/fish/vendor_completions.d/datebook.fish 644"
  "lib/systemd/user/datebook.service 644"
  "lib/systemd/user/datebook-tick.service 644"
  "lib/systemd/user/datebook-tick.timer 644"
  "share/doc/datebook/config.example.json5 644"
)

fail() { echo "install: $*" >&2; exit 1; }

# Runs the binary in a clean environment (no config, no store of the user's).
clean() { env -i "HOME=$stage" "PATH=/usr/bin:/bin" "$BIN" "$@"; }

# Writes the content of installed path $1 to file $2, from the binary and etc/systemd.
generate() {
  case "$1" in
    bin/datebook) cp "$BIN" "$2" ;;
    # The desktop channel's click waiter, found next to the binary (docs/desktop.md).
    bin/datebook-notify-wait) cp "$(dirname "$BIN")/datebook-notify-wait" "$2" ;;
    share/man/man1/datebook.1) clean man 1 >"$2" ;;
    share/man/man5/datebook-config.5) clean man 5 >"$2" ;;
    share/bash-completion/completions/datebook) clean completions bash >"$2" ;;
    share/zsh/site-functions/_datebook) clean completions zsh >"$2" ;;
    share/fish/vendor_completions.d/datebook.fish) clean completions fish >"$2" ;;
    # The reference config that messages point to (datebook config init writes a starting one).
    share/doc/datebook/config.example.json5) cp "$here/etc/config.example.json5" "$2" ;;
    # The units run the installed binary, not ~/.local/bin/datebook.
    lib/systemd/user/*) sed "s|%h/.local/bin/datebook|$PREFIX/bin/datebook|" "$here/etc/systemd/$(basename "$1")" >"$2" ;;
  esac
}

install_all() {
  [ -x "$BIN" ] || fail "no datebook binary at $BIN: run 'make build' first, or set BIN"
  stage=$(mktemp -d "${TMPDIR:-/tmp}/datebook-install.XXXXXX")
  written=() made=()
  # Takes back every file and folder this run made (on any failure, and for the staging folder).
  undo() {
    local path
    for path in "${written[@]}"; do rm -f "$path"; done
    for ((i = ${#made[@]} - 1; i >= 0; i--)); do rmdir "${made[i]}" 2>/dev/null || true; done
    rm -rf "$stage"
  }
  trap 'undo' EXIT
  local entry path mode target dir
  local unwritable="$root is not writable (install as root, or choose PREFIX=\$HOME/.local); nothing was installed"
  for entry in "${files[@]}"; do
    read -r path mode <<<"$entry"
    generate "$path" "$stage/${path//\//_}" || fail "cannot generate $path from $BIN"
  done
  # Each file goes beside its target under a temporary name: a prefix that cannot be written
  # fails here, before any target is touched.
  for entry in "${files[@]}"; do
    read -r path mode <<<"$entry"
    target="$root/$path"
    dir=$(dirname "$target")
    local missing=() probe=$dir
    while [ ! -d "$probe" ]; do missing=("$probe" "${missing[@]}"); probe=$(dirname "$probe"); done
    for probe in "${missing[@]}"; do
      mkdir "$probe" 2>/dev/null || fail "cannot create $probe: $unwritable"
      made+=("$probe")
    done
    local temporary="$dir/.$(basename "$path").install-$$"
    written+=("$temporary")
    install -m "$mode" "$stage/${path//\//_}" "$temporary" 2>/dev/null \
      || fail "cannot write in $dir: $unwritable"
  done
  for entry in "${files[@]}"; do
    read -r path mode <<<"$entry"
    mv -f "$root/$(dirname "$path")/.$(basename "$path").install-$$" "$root/$path"
    echo "installed $root/$path"
  done
  written=() made=()
  # The note on run-time dependencies: the libraries datebook opens when a command needs them, from
  # the binary's own list (Sources/CLoader/include/datebook_libraries.h), as found on this machine.
  echo "datebook opens these libraries when a command needs them (datebook doctor --libraries):"
  clean doctor --libraries | sed 's/^/  /' || true
}

uninstall_all() {
  local entry path
  for entry in "${files[@]}"; do
    read -r path _ <<<"$entry"
    if [ -e "$root/$path" ] || [ -L "$root/$path" ]; then
      rm -f "$root/$path" || fail "cannot remove $root/$path (uninstall as the user who installed)"
      echo "removed $root/$path"
    fi
  done
}

case "$action" in
  install) install_all ;;
  uninstall) uninstall_all ;;
  list) for entry in "${files[@]}"; do echo "$root/${entry%% *}"; done ;;
  *) fail "expected install, uninstall or list, got '$action'" ;;
esac
