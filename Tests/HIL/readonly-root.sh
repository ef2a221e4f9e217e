# Sourced by Tests/HIL/guest.sh (section 11b, issue 47): the door on a read-only root with
# its state on a writable partition. The guest's root is bound read-only at $RO (submounts
# such as /dev, /proc and /run come along, as on a real system) and the door runs chrooted
# there, as Raspberry Pi OS's overlay root or ProtectSystem=strict would leave it: nothing
# but /var/lib/kioskpad (an ext4 file system on a loop device, the "data partition") and
# /run can be written. Uses pass/fail/check, config, KP, W, USERS and the keypad helpers.
RO=/run/ro-root
RODIR=/run/kioskpad-ro   # the config and users file, on /run (a tmpfs) so the chroot sees them
mkdir -p $RO $RODIR /var/lib/kioskpad
cp $USERS $RODIR/users
config $RODIR/door.yaml keypad-sim 20 "  kind: local
  users_file: $RODIR/users"
printf 'state_dir: /var/lib/kioskpad\nmetrics:\n  listen: "off"\n' >> $RODIR/door.yaml
if modprobe loop && modprobe ext4 && mount --rbind / $RO && mount -o remount,bind,ro $RO; then
    inside() { chroot $RO "$@"; }
    if inside touch /var/lib/kioskpad/probe 2>/dev/null; then fail "read-only root: / is still writable in $RO"; else pass "read-only root: the bound root refuses writes"; fi
    inside $KP config check $RODIR/door.yaml --with-files > $W/ro-check.out 2>&1; rc=$?
    if [ $rc = 2 ] && grep -q 'state_dir: /var/lib/kioskpad cannot be written (.*ead-only' $W/ro-check.out; then
        pass "read-only root, no data partition: config check --with-files exits 2 naming state_dir"
    else
        fail "read-only root, config check: exit $rc: $(cat $W/ro-check.out)"
    fi
    mount -t tmpfs tmpfs $RO/var/lib/kioskpad
    inside $KP config check $RODIR/door.yaml --with-files > $W/ro-tmpfs.out 2> $W/ro-tmpfs.err; rc=$?
    if [ $rc = 0 ] && grep -q 'warning: state_dir: /var/lib/kioskpad is in memory (tmpfs)' $W/ro-tmpfs.err; then
        pass "state_dir on a tmpfs: config check warns (the journal would vanish at the next boot), exit 0"
    else
        fail "tmpfs state_dir: exit $rc: $(cat $W/ro-tmpfs.out $W/ro-tmpfs.err)"
    fi
    umount $RO/var/lib/kioskpad
    # The data partition: ext4 with the label the docs give, mounted noatime.
    truncate -s 16M $W/kpdata.img
    mkfs.ext4 -q -L kpdata $W/kpdata.img && mount -o loop,noatime $W/kpdata.img $RO/var/lib/kioskpad
    inside $KP config check $RODIR/door.yaml --with-files > $W/ro-data.out 2>&1; rc=$?
    if [ $rc = 0 ] && ! grep -q warning $W/ro-data.out; then pass "state_dir on the data partition: config check passes without a warning"; else fail "data partition: exit $rc: $(cat $W/ro-data.out)"; fi
    taskset -c 0 chroot $RO $KP run --config $RODIR/door.yaml --display plain > $W/ro-run.out 2>&1 &
    RUN=$!
    i=0; while ! grep -q 'keypad ready' $W/ro-run.out && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    # Typed again if the emulator lost a key (it counts in emu.log), so at least one grant.
    type_pin_until $W/ro-run.out 'Access granted' 2468
    kill -TERM $RUN; wait $RUN; rc=$?
    check "read-only root: the door runs, grants and stops with exit 0" "0 yes" "$rc $([ $(grep -c 'Access granted' $W/ro-run.out) -ge 1 ] && echo yes || echo no)"
    # As after a reboot: the partition unmounted and mounted again still holds the record.
    umount $RO/var/lib/kioskpad && mount -o loop,noatime $W/kpdata.img $RO/var/lib/kioskpad
    check "read-only root: the grant is journaled on the data partition and survives a remount" 1 \
        "$(grep -c '"type":"attempt".*"decision":"granted"' $RO/var/lib/kioskpad/journal.jsonl 2>/dev/null)"
    umount $RO/var/lib/kioskpad
    umount -R $RO
else
    fail "read-only root: could not load loop and ext4 or bind the root read-only"
fi
