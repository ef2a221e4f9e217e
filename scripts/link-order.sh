#!/usr/bin/env bash
# Writes scripts/link-order/kioskpad.order: the functions `kioskpad` runs from start to a
# granted PIN in simulated mode (plain, then with the journal and the metrics endpoint, then
# reporting to Debian's mosquitto on loopback over MQTT), as valgrind's callgrind records them. Package.swift hands the file to lld
# (--symbol-ordering-file) for release builds, which puts those functions next to each other
# at the front of the program's code, so a start maps a few MB of it instead of pages
# scattered over all 28 MB (docs/development.md, "Footprint"). Functions that have a section of their own
# come first, then those in larger sections (which move whole). Functions the file names but
# the program no longer has are skipped; functions it lacks stay where the linker puts them,
# so a stale file costs memory, never correctness. Run it again when start-up code changes:
#
#   scripts/link-order.sh
#
# Builds the release binary (with a link map). Needs valgrind and mosquitto (installed here
# when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    '') ;;
    *) echo "link-order.sh: unknown option '$1' (valid: --help)" >&2; exit 2 ;;
esac
missing=()
for tool in valgrind mosquitto; do command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "link-order.sh: needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
work=$(mktemp -d /tmp/kioskpad-order.XXXXXX)
broker=''
trap '[ -n "$broker" ] && kill "$broker" 2>/dev/null; rm -rf "$work"' EXIT
release=(swift build -c release --static-swift-stdlib --product kioskpad)
# The link map says which input section each function is in, and how big that section is.
"${release[@]}" -Xlinker "-Map=$work/kioskpad.map" >&2
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/kioskpad"
# valgrind cannot read the toolchain's DWARF; the symbol table is all it needs.
cp "$binary" "$work/kioskpad"
strip --strip-debug "$work/kioskpad"
mkdir "$work/state"
printf 'keypad:\n  driver: terminal\ndisplay:\n  driver: plain\n  columns: 16\n  rows: 2\nentry:\n  result_s: 0.5\nverifier:\n  kind: demo\n' > "$work/plain.yaml"
cp "$work/plain.yaml" "$work/daemon.yaml"
printf 'state_dir: %s/state\nmetrics:\n  listen: 127.0.0.1:0\n' "$work" >> "$work/daemon.yaml"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > "$work/mosquitto.conf"
PATH=$PATH:/usr/sbin mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
broker=$!
cp "$work/plain.yaml" "$work/mqtt.yaml"
printf 'mqtt:\n  url: mqtt://127.0.0.1:%s\n' "$port" >> "$work/mqtt.yaml"
sleep 0.5
for scenario in plain daemon mqtt; do
    # The demo verifier's PIN; nothing here is a real secret.
    printf '1234' | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$scenario.callgrind" \
        "$work/kioskpad" simulate --config "$work/$scenario.yaml" --display plain > "$work/$scenario.out" 2> "$work/$scenario.log" \
        || { tail -5 "$work/$scenario.log" >&2; echo "link-order.sh: simulate under valgrind failed ($scenario)" >&2; exit 1; }
    grep -q 'Access granted' "$work/$scenario.out" || { echo "link-order.sh: no grant in the $scenario run" >&2; exit 1; }
done
python3 - "$work/kioskpad.map" "$work/plain.callgrind" "$work/daemon.callgrind" "$work/mqtt.callgrind" > scripts/link-order/kioskpad.order <<'PY'
import re, sys
# Map lines: VMA LMA SIZE ALIGN then an output section, an input section (file:(name)) or a symbol.
section_size, current = {}, None
for line in open(sys.argv[1], errors="replace"):
    match = re.match(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*)$", line)
    if not match:
        continue
    size, rest = match.groups()
    if ":(" in rest:
        current = int(size, 16)
    elif rest.startswith("."):
        current = None
    elif current is not None:
        section_size.setdefault(rest.strip(), current)
ran, seen = [], set()
for path in sys.argv[2:]:
    names = {}
    for line in open(path, errors="replace"):
        match = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        number, name = match.groups()
        if name:
            names[number] = name
        name = names.get(number)
        if name and name not in seen and name in section_size:
            seen.add(name)
            ran.append(name)
small = [name for name in ran if section_size[name] <= 16384]
print("\n".join(small + [name for name in ran if section_size[name] > 16384]))
PY
echo "link-order: $(wc -l < scripts/link-order/kioskpad.order) functions in scripts/link-order/kioskpad.order" >&2
