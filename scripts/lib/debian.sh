# Sourced by the scripts: `need_debian_packages pkg...` installs the Debian packages given that
# are missing (through sudo when not root), quietly; an `apt-get update` only when the install
# fails without one.
need_debian_packages() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root or sudo to install: $*" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "installing $* (Debian packages)" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 \
    || { $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "$@" >/dev/null; }
}
