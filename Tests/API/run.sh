#!/usr/bin/env bash
# The site server against its own API documents: Schemathesis (PyPI), a schema-driven fuzzer,
# generates requests from docs/openapi.yaml (valid ones and ones that break the schema), signs
# each as a door would (Tests/API/signing_hooks.py) and sends it to a real `kioskpad verifier
# serve` on loopback (SQLite, the demo users). Every answer must be one the document gives for
# that request: a status it lists, a body its schema allows, no 5xx; a request outside the schema
# refused, one inside it accepted. Then the management API (docs/api-openapi.yaml) on the
# console's listener, with a token of every scope, the same way.
#
#   Tests/API/run.sh [--binary PATH] [--examples N] [--seed N]
#
# --binary: the kioskpad binary (default .build/debug/kioskpad; `verifier` runs the
# kioskpad-verifier beside it). --examples: per operation and mode (default 40). --seed: the
# same requests again (Schemathesis prints the seed it used).
# Left out of the checks: `positive_data_acceptance` for /v1/events: a record the schema allows
# may still be dated outside the server's window (5 minutes ahead, `keep_days` back), which
# JSON Schema cannot state; the server refuses it with 400 naming the record and field, and the
# integration tests cover the window. And for /v1/check-in: a check-in signed with the site
# secret is taken only from a door that has reported to the site, and the fuzzed site has none
# (the unit tests cover both sides).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=$repo/.build/debug/kioskpad
examples=40
seed=()
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --examples) examples=${2:?--examples needs a number}; shift 2 ;;
        --seed) seed=(--seed "${2:?--seed needs a number}"); shift 2 ;;
        *) echo "api-fuzz: unknown option '$1' (valid: --binary PATH, --examples N, --seed N)" >&2; exit 2 ;;
    esac
done
[ -x "$binary" ] || { echo "api-fuzz: no $binary (swift build --product kioskpad, and kioskpad-verifier)" >&2; exit 2; }
if ! python3 -c 'import schemathesis' 2>/dev/null; then
    echo "api-fuzz: installing schemathesis (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check "schemathesis==4.32.5" >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "schemathesis==4.32.5" >&2
fi
work=$(mktemp -d /tmp/kioskpad-api-fuzz.XXXXXX)
server=''
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
console_port=$(free_port)
(umask 077; "$binary" verifier secret > "$work/secret")
# Limits raised so the fuzzer's thousands of refused requests and records are answered, not
# throttled: the throttles have tests of their own.
cat > "$work/verifier.yaml" <<YAML
server:
  listen: 127.0.0.1:$port
  state_dir: $work
  secret_file: $work/secret
  rejected_per_source: 100000
  console:
    enabled: true
    listen: 127.0.0.1:$console_port
  events:
    max_records_per_minute: 1000000
    max_bytes_per_day: 10000000000
YAML
"$binary" verifier import --users-file "$repo/config/users.example" --config "$work/verifier.yaml" > /dev/null
token=$("$binary" verifier token create fuzz --scope read,users,codes,doors,webhooks --config "$work/verifier.yaml" 2> /dev/null)
"$binary" verifier serve --config "$work/verifier.yaml" > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    if python3 -c "import socket; [socket.create_connection(('127.0.0.1', p), 1).close() for p in ($port, $console_port)]" 2>/dev/null; then break; fi
    sleep 0.1
done
started=$SECONDS
set +e
# From the work folder: Schemathesis keeps a .schemathesis folder where it runs.
cd "$work"
KIOSKPAD_FUZZ_SECRET_FILE=$work/secret SCHEMATHESIS_HOOKS=signing_hooks PYTHONPATH=$repo/Tests/API \
    schemathesis --config-file "$repo/Tests/API/schemathesis.toml" run "$repo/docs/openapi.yaml" \
    --url "http://127.0.0.1:$port" --mode all --max-examples "$examples" "${seed[@]}" \
    --workers 1 --request-timeout 10 2>&1 | tee "$work/schemathesis.log"
status=${PIPESTATUS[0]}
schemathesis --config-file "$repo/Tests/API/schemathesis-api.toml" run "$repo/docs/api-openapi.yaml" --url "http://127.0.0.1:$console_port" --header "Authorization: Bearer $token" \
    --mode all --max-examples "$examples" "${seed[@]}" --workers 1 --request-timeout 10 2>&1 | tee "$work/schemathesis-api.log"
management=${PIPESTATUS[0]}
[ "$management" -eq 0 ] || status=$management
set -e
cd "$repo"
if ! kill -0 "$server" 2>/dev/null; then echo "api-fuzz: the server exited during the run:" >&2; tail -20 "$work/serve.log" >&2; status=1; fi
echo "api-fuzz: $examples examples per operation and mode, $((SECONDS - started)) s, exit $status" >&2
exit $status
