# Sourced by scripts/ensure-*.sh, after `set -eu`: what each of them does to install what the
# tests need from Debian's packages when it is missing. A script defines `present` (a check that
# succeeds once the thing is installed, quietly) and then calls `apt_ensure`; one that does more
# than install a package (ensure-promtool.sh) calls the steps itself. A script with nothing to do
# prints nothing and exits 0, so the suite can run them all every time.

# The script's name, which begins each of its messages: ensure-redis.
APT_SCRIPT=$(basename "$0" .sh)
# apt-get's lists are updated at most once per script.
APT_UPDATED=""
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

# apt_say MESSAGE: MESSAGE on stderr, after the script's name.
apt_say() {
  echo "$APT_SCRIPT: $1" >&2
}

# apt_fail MESSAGE: says MESSAGE and exits 1.
apt_fail() {
  apt_say "$1"
  exit 1
}

# apt_require HINT: exits 1 on a machine without apt-get, saying HINT (what to install by hand).
apt_require() {
  command -v apt-get >/dev/null 2>&1 || apt_fail "no apt-get here; $1"
}

# apt_update: updates apt-get's package lists, once.
apt_update() {
  if [ -z "$APT_UPDATED" ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
}

# apt_ensure HINT PACKAGE...: nothing when `present` succeeds; else installs the PACKAGEs (no
# recommends, quietly), then checks `present` again. HINT says what to install by hand on a
# machine without apt-get.
apt_ensure() {
  if present; then return 0; fi
  apt_require "$1"
  shift
  apt_say "installing Debian's $* package$([ $# -gt 1 ] && echo s || true)"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  present || apt_fail "install failed"
}
