# Sourced by Tests/HIL/guest.sh right after systemd-e2e.sh, inside the same Debian 12 root with
# systemd running: the Debian packages from scripts/package-deb.sh (kioskpad, the door, and
# kioskpad-verifier, the site server), end to end.
#   1. dpkg -i of both over the site deploy/install.sh made (takeover): install.sh's unit, rule
#      and binaries go, the site's edited config and users stay, the unit starts from /usr/lib
#      and a PIN on the emulated keypad pulses the relay;
#   2. apt-get upgrade from the site's signed apt repository (revision 2; Tests/HIL/run.sh
#      builds it with scripts/apt-repo.sh, the root reads it by a file: URI with Signed-By)
#      keeps the edited config and the users, and starts the door once more, once;
#   3. the site server's unit starts when asked (it is off until enabled) and makes its database;
#      then the door, its config naming only that site, shows its pairing code and is adopted
#      with it (no SSH needed for its secret), and a PIN the site knows pulses the relay;
#   4. apt-get remove kioskpad stops both services (relay off), removes kioskpad-verifier (it
#      depends on kioskpad), the units and the binaries;
#   5. purge removes config, state and the user kioskpad, keeps the site database and says so;
#   6. a fresh install of the door alone (no users yet) is not started nor enabled and says
#      why, and `kioskpad verifier` names the package it needs; then the site server's package.
# Needs: DEB_DIR (kioskpad_*-1_*.deb, kioskpad_*-2_*.deb and the same of kioskpad-verifier),
# and systemd-e2e.sh's R, inside, keypad_ready, plus guest.sh's helpers.

deb1=$(ls $DEB_DIR/kioskpad_*-1_*.deb | head -1)
deb2=$(ls $DEB_DIR/kioskpad_*-2_*.deb | head -1)
site1=$(ls $DEB_DIR/kioskpad-verifier_*-1_*.deb | head -1)
site2=$(ls $DEB_DIR/kioskpad-verifier_*-2_*.deb | head -1)
# Copied in: a mount made now would not reach systemd's mount namespace, made before.
mkdir -p $R/opt/kioskpad-debs
cp $deb1 $deb2 $site1 $site2 $R/opt/kioskpad-debs/
in_root() { echo "/opt/kioskpad-debs/$(basename $1)"; }

# The site as install.sh left it (systemd-e2e.sh stopped its service at the end), back on its
# local users file: the verifier of its step 7 is stopped.
sed -i "/^  kind: http$/,/^  offline: /d; s|^verifier:$|verifier:\n  kind: local\n  users_file: /etc/kioskpad/users|" $R/etc/kioskpad/kioskpad.yaml
echo '# this site: edited after install' >> $R/etc/kioskpad/kioskpad.yaml
ready=$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')

# 1. takeover
t_install=$(date +%s%N)
inside env DEBIAN_FRONTEND=noninteractive dpkg -i $(in_root $deb1) $(in_root $site1) < /dev/null > $W/pkg-install.out 2>&1; rc=$?
echo "pkg_install_ms=$((($(date +%s%N) - t_install) / 1000000))" >> $OUT/e2e.txt
check "dpkg -i of both packages over an install.sh site exits 0" 0 $rc
check "install.sh's unit, udev rule, /usr/local/bin/kioskpad and kioskpad-verifier are gone" "no no no no" \
    "$(test -e $R/etc/systemd/system/kioskpad.service && echo yes || echo no) $(test -e $R/etc/udev/rules.d/99-kioskpad.rules && echo yes || echo no) $(test -e $R/usr/local/bin/kioskpad && echo yes || echo no) $(test -e $R/usr/local/bin/kioskpad-verifier && echo yes || echo no)"
check "the unit now comes from the package, enabled and active" "/usr/lib/systemd/system/kioskpad.service enabled active" \
    "$(inside readlink -f "$(inside systemctl show -p FragmentPath --value kioskpad)") $(inside systemctl is-enabled kioskpad) $(inside systemctl is-active kioskpad)"
if grep -q 'door-sim' $R/etc/kioskpad/kioskpad.yaml && grep -q '^# this site: edited after install' $R/etc/kioskpad/kioskpad.yaml && grep -q '^alice:' $R/etc/kioskpad/users; then
    pass "takeover kept the site's edited kioskpad.yaml and its users"
else fail "takeover lost the config or users: $(tail -3 $W/pkg-install.out)"; fi
check "/etc/kioskpad stays root:kioskpad 0750, kioskpad.yaml 0640" "root kioskpad 750 640" \
    "$(inside stat -c '%U %G %a' /etc/kioskpad) $(inside stat -c '%a' /etc/kioskpad/kioskpad.yaml)"
keypad_ready $((ready + 1))
watch_relay $W/pkg-relay1.log
type_pin_until_on $W/pkg-relay1.log 2468; sleep 3.5; kill $WATCH
if grep -q ' 1$' $W/pkg-relay1.log && [ "$(cat $DSIM/sim_gpio0/value)" = 0 ]; then pass "packaged service: PIN on the emulated keypad pulsed the relay"; else fail "packaged relay: $(tr '\n' ' ' < $W/pkg-relay1.log) $(inside journalctl -u kioskpad --no-pager | tail -5)"; fi
check "kioskpad --version names the package's version" "kioskpad $(basename $deb1 | cut -d_ -f2 | sed 's/-[0-9]*$//')," \
    "$(inside /usr/bin/kioskpad --version | cut -d' ' -f1-2)"

# 2. upgrade, with apt from the signed repository, as docs/raspberry-pi.md gives it
mkdir -p $R/opt/kioskpad-repo $R/etc/apt/keyrings
cp -a $OUT/apt-repo/public/. $R/opt/kioskpad-repo/
cp $OUT/apt-repo/public/kioskpad-archive-keyring.gpg $R/etc/apt/keyrings/
printf 'Types: deb\nURIs: file:/opt/kioskpad-repo\nSuites: bookworm\nComponents: main\nSigned-By: /etc/apt/keyrings/kioskpad-archive-keyring.gpg\n' \
    > $R/etc/apt/sources.list.d/kioskpad.sources
apt_in() { inside env DEBIAN_FRONTEND=noninteractive apt-get -o Dir::Etc::SourceList=/dev/null -q "$@" < /dev/null; }
pid1=$(inside systemctl show -p MainPID --value kioskpad)
ready=$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')
t_upgrade=$(date +%s%N)
apt_in update > $W/pkg-upgrade.out 2>&1 && apt_in upgrade -y >> $W/pkg-upgrade.out 2>&1; rc=$?
echo "pkg_apt_upgrade_ms=$((($(date +%s%N) - t_upgrade) / 1000000))" >> $OUT/e2e.txt
check "apt-get update and upgrade from the signed repository exit 0" 0 $rc
check "the upgrade of both packages is installed" "$(basename $deb2 | cut -d_ -f2) $(basename $deb2 | cut -d_ -f2)" \
    "$(inside dpkg-query -W -f='${Version}' kioskpad) $(inside dpkg-query -W -f='${Version}' kioskpad-verifier)"
if grep -q '^# this site: edited after install' $R/etc/kioskpad/kioskpad.yaml && grep -q '^alice:' $R/etc/kioskpad/users; then pass "the upgrade kept the edited config and the users"; else fail "the upgrade lost the config or users"; fi
pid2=$(inside systemctl show -p MainPID --value kioskpad)
if [ "$(inside systemctl is-active kioskpad)" = active ] && [ "$pid1" != "$pid2" ]; then pass "the upgrade restarted the running service ($pid1 -> $pid2)"; else fail "after the upgrade: $(inside systemctl is-active kioskpad), pid $pid1 -> $pid2"; fi
keypad_ready $((ready + 1))
watch_relay $W/pkg-relay2.log
type_pin_until_on $W/pkg-relay2.log 2468; sleep 3.5; kill $WATCH
if grep -q ' 1$' $W/pkg-relay2.log; then pass "after the upgrade a PIN still pulses the relay"; else fail "relay after the upgrade: $(tr '\n' ' ' < $W/pkg-relay2.log) $(inside journalctl -u kioskpad --no-pager | tail -5)"; fi
check "the upgrade started the door once" $((ready + 1)) "$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')"
# The door's time without a terminal: from its last line before the upgrade to keypad ready.
inside journalctl -u kioskpad -o short-unix --no-pager 2>/dev/null > $W/pkg-upgrade-journal.txt
awk -v since="$(awk "BEGIN { printf \"%.6f\", $t_upgrade / 1e9 }")" '$1 + 0 >= since && /terminal stopped/ && !stop { stop = $1 }
    $1 + 0 >= since && /keypad ready/ && stop && !ready { ready = $1 }
    END { if (stop && ready) printf "pkg_upgrade_door_down_ms=%d\n", (ready - stop) * 1000 }' $W/pkg-upgrade-journal.txt >> $OUT/e2e.txt

# 3. the site server's unit: off until enabled, then it serves and makes its database
check "kioskpad-verifier.service is installed but not enabled" "disabled inactive" "$(inside systemctl is-enabled kioskpad-verifier 2>&1) $(inside systemctl is-active kioskpad-verifier 2>&1)"
inside systemctl start kioskpad-verifier
i=0; while ! inside test -s /var/lib/kioskpad-verifier/verifier.sqlite3 && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
health=$(python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:8787/healthz", timeout=5).status)' 2>&1)
check "kioskpad-verifier.service serves /healthz and keeps its database in /var/lib/kioskpad-verifier" "200 kioskpad-verifier" \
    "$health $(inside stat -c %U /var/lib/kioskpad-verifier/verifier.sqlite3 2>&1)"
exposure=$(inside systemd-analyze security kioskpad-verifier.service 2>&1 | sed -n 's/.*Overall exposure level for kioskpad-verifier.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then pass "kioskpad-verifier.service security exposure $exposure <= 2.0"; else fail "kioskpad-verifier exposure '$exposure'"; fi
echo "pkg_verifier_exposure=$exposure" >> $OUT/e2e.txt

# 3b. the door adopted by the packaged site, as an installer does it without SSH: its config
#     names only the site; the service shows the pairing code, the site adopts it with the
#     code, and a PIN the site knows pulses the relay. Then the hand-written config again.
cp $R/etc/kioskpad/kioskpad.yaml $W/pkg-handwritten.yaml
sed -i '/^verifier:$/,/^  users_file: /d' $R/etc/kioskpad/kioskpad.yaml
echo 'site: http://127.0.0.1:8787' >> $R/etc/kioskpad/kioskpad.yaml
asite() { inside runuser -u kioskpad-verifier -- /usr/bin/kioskpad verifier "$@" --config /etc/kioskpad-verifier/verifier.yaml; }
printf '1357\n' | asite user add carol --iterations 1000 > $W/pkg-adopt-user.out 2>&1
pair_status() { inside /usr/bin/kioskpad pair status --state-dir /var/lib/kioskpad 2>/dev/null; }
ready=$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')
t_start=$(date +%s%N)
inside systemctl restart kioskpad
i=0; while ! pair_status | grep -q '^waiting: pairing code' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
t_code=$(date +%s%N)
code=$(pair_status | sed -n 's/^waiting: pairing code //p')
echo "$code" | asite terminal adopt --name hil-door > $W/pkg-adopt.out 2>&1
t_adopted=$(date +%s%N)
i=0; while ! inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -q 'adopted by the site' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
keypad_ready $((ready + 1))
t_live=$(date +%s%N)
watch_relay $W/pkg-adopt-relay.log
read t_typed _ < /proc/uptime
# Typed again when the relay did not pulse (a key lost under emulation; CI lost one here).
type_pin_until_on $W/pkg-adopt-relay.log 1357
# The site's unlock_seconds (5, the packaged verifier.yaml) sets the time, not the door's file.
i=0; while [ "$(cat $DSIM/sim_gpio0/value)" != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3; kill $WATCH
check "package: a door naming only its site shows a pairing code under systemd and is adopted" "hil-door: sealed for the door" \
    "$(cut -c1-29 $W/pkg-adopt.out)"
if grep -q ' 1$' $W/pkg-adopt-relay.log && [ "$(cat $DSIM/sim_gpio0/value)" = 0 ]; then
    pass "package: the adopted door's relay pulsed for a PIN the site knows ($(awk '$2 == 1 { on = $1 } $2 == 0 && on { printf "%.1f s", $1 - on; exit }' $W/pkg-adopt-relay.log), the site's unlock_seconds 5), and is off again"
else fail "adopted relay: $(tr '\n' ' ' < $W/pkg-adopt-relay.log) $(inside journalctl -u kioskpad --no-pager | tail -5)"; fi
check "package: the adopted door keeps its secret and site in its state, mode 600" "600 600" \
    "$(inside stat -c %a /var/lib/kioskpad/site.secret 2>&1) $(inside stat -c %a /var/lib/kioskpad/site.json 2>&1)"
relay_at=$(sed -n 's/ 1$//p' $W/pkg-adopt-relay.log | head -1)
{
    echo "pkg_adopt_code_shown_ms=$(((t_code - t_start) / 1000000))"
    echo "pkg_adopt_live_ms=$(((t_live - t_adopted) / 1000000))"
    echo "pkg_adopt_pin_to_relay_ms=$(awk -v a="$t_typed" -v b="$relay_at" 'BEGIN { if (b == "") print "none"; else printf "%d", (b - a) * 1000 }')"
} >> $OUT/e2e.txt
cp $W/pkg-handwritten.yaml $R/etc/kioskpad/kioskpad.yaml
ready=$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')
inside systemctl restart kioskpad
keypad_ready $((ready + 1))

# 4. remove
inside env DEBIAN_FRONTEND=noninteractive apt-get remove -y kioskpad < /dev/null > $W/pkg-remove.out 2>&1; rc=$?
check "apt-get remove exits 0" 0 $rc
check "remove stopped both services, the relay is off" "inactive inactive 0" \
    "$(inside systemctl is-active kioskpad 2>&1) $(inside systemctl is-active kioskpad-verifier 2>&1) $(cat $DSIM/sim_gpio0/value)"
check "remove took both units and both binaries, kept the config" "no no no no yes" \
    "$(test -e $R/usr/lib/systemd/system/kioskpad.service && echo yes || echo no) $(test -e $R/usr/lib/systemd/system/kioskpad-verifier.service && echo yes || echo no) $(test -e $R/usr/bin/kioskpad && echo yes || echo no) $(test -e $R/usr/bin/kioskpad-verifier && echo yes || echo no) $(test -e $R/etc/kioskpad/kioskpad.yaml && echo yes || echo no)"

# 5. purge
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y kioskpad kioskpad-verifier < /dev/null > $W/pkg-purge.out 2>&1; rc=$?
check "apt-get purge exits 0" 0 $rc
check "purge removed /etc/kioskpad, /etc/kioskpad-verifier, /var/lib/kioskpad and the user kioskpad" "no no no no" \
    "$(test -e $R/etc/kioskpad && echo yes || echo no) $(test -e $R/etc/kioskpad-verifier && echo yes || echo no) $(test -e $R/var/lib/kioskpad && echo yes || echo no) $(grep -q '^kioskpad:' $R/etc/passwd && echo yes || echo no)"
if [ -s $R/var/lib/kioskpad-verifier/verifier.sqlite3 ] && grep -q 'kept the site database' $W/pkg-purge.out; then pass "purge kept the site database and said so"; else fail "purge and the site database: $(tail -3 $W/pkg-purge.out)"; fi

# 6. a fresh install of the door alone, on a machine with no users yet: installed, not started,
# not enabled; then the site server's package beside it
inside env DEBIAN_FRONTEND=noninteractive dpkg -i $(in_root $deb2) < /dev/null > $W/pkg-fresh.out 2>&1; rc=$?
check "dpkg -i of the door's package alone on a fresh machine exits 0" 0 $rc
if grep -q 'kioskpad.service is not started' $W/pkg-fresh.out && grep -q 'lists no users' $W/pkg-fresh.out; then pass "a fresh install says the service was not started and why"; else fail "fresh install: $(tail -5 $W/pkg-fresh.out)"; fi
check "a fresh install leaves the door's service disabled and inactive" "disabled inactive" "$(inside systemctl is-enabled kioskpad 2>&1) $(inside systemctl is-active kioskpad 2>&1)"
check "a fresh install makes the users file and a whsec_ secret with their owners and modes" "kioskpad 600 root 600 whsec_" \
    "$(inside stat -c '%U %a' /etc/kioskpad/users) $(inside stat -c '%U %a' /etc/kioskpad/verifier.secret) $(cut -c1-6 $R/etc/kioskpad/verifier.secret)"
inside /usr/bin/kioskpad verifier secret > $W/pkg-door-only.out 2>&1; rc=$?
if [ $rc = 1 ] && grep -q 'install the kioskpad-verifier package' $W/pkg-door-only.out; then pass "a door without kioskpad-verifier: kioskpad verifier names the package (exit 1)"; else fail "kioskpad verifier on a door alone: exit $rc, $(cat $W/pkg-door-only.out)"; fi
inside env DEBIAN_FRONTEND=noninteractive dpkg -i $(in_root $site2) < /dev/null >> $W/pkg-fresh.out 2>&1; rc=$?
check "then dpkg -i of kioskpad-verifier exits 0" 0 $rc
check "it makes the site secret, 0640 root:kioskpad-verifier, and leaves the server off" "kioskpad-verifier 640 disabled inactive" \
    "$(inside stat -c '%G %a' /etc/kioskpad-verifier/site.secret) $(inside systemctl is-enabled kioskpad-verifier 2>&1) $(inside systemctl is-active kioskpad-verifier 2>&1)"
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y kioskpad kioskpad-verifier < /dev/null >> $W/pkg-fresh.out 2>&1
cp $W/pkg-*.out $OUT/ 2>/dev/null
