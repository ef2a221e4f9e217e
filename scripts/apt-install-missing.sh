# Sourced by the scripts that install what they need (setup.sh, arm64/toolchain.sh,
# Tests/Guest/setup.sh): apt_install_missing PACKAGE... installs, as root or with sudo,
# the Debian packages given that are not installed yet, and nothing when all are.
apt_install_missing() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "setup: installing ${missing[*]}" >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

