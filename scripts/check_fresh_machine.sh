#!/usr/bin/env bash
# The fresh-machine check: do the README's two commands work on a bare Debian 12?
#
# Builds a `minbase` Debian 12 (bookworm) root with debootstrap, plus git, the way a new user's
# machine starts; bind-mounts this machine's CUDA toolkit read-only at /usr/local/cuda (a plain
# folder: no ld.so.conf entry, no edited CMake module); clones the commit under test; then:
#   1. a user without sudo runs scripts/run.sh: one line naming the missing packages and the
#      command to run as root, exit 2, nothing installed;
#   2. root runs scripts/run.sh (installs the Debian packages, builds, starts; exit 3 with its
#      no-GPU message is success here, since the check has no GPU);
#   3. the same user, now with sudo, runs scripts/test.sh in that tree (now theirs): the whole
#      suite, once, as a user (no test needs root; a test that passed only as root would hide
#      there), and set-up installs a package taken away through sudo.
# One verdict line per command; the mounts are removed on any exit.
#
# Usage (as root): scripts/check_fresh_machine.sh [COMMIT]   (default HEAD)
# Environment: CUDA_HOME (default /usr/local/cuda), KL_FRESH_DIR (default: a new folder under
# /var/tmp), KL_FRESH_KEEP=1 keeps the root afterwards, KL_FRESH_MIRROR (default: the first
# bookworm mirror in this machine's apt sources), KL_FRESH_CTEST_EXCLUDE (test labels left out
# of the test run inside, default archs; empty runs them all), KL_FRESH_CMAKE_ARGS (passed to
# both commands as KL_CMAKE_ARGS, so the test command reuses run.sh's build; CI: -DKL_WERROR=ON).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
commit=$(git rev-parse --verify "${1:-HEAD}^{commit}") || { echo "fresh-machine: no commit '${1:-HEAD}'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: must run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[ -e "$cuda/include/nvrtc.h" ] || { echo "fresh-machine: no CUDA toolkit in ${CUDA_HOME:-/usr/local/cuda}" >&2; exit 2; }
if ! command -v debootstrap > /dev/null; then
    echo "fresh-machine: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null ||
        { echo "fresh-machine: cannot install debootstrap" >&2; exit 2; }
fi
mirror=${KL_FRESH_MIRROR:-$(apt-cache policy 2> /dev/null | awk '$3 == "bookworm/main" && $2 ~ /^https?:/ { print $2; exit }')}
[ -n "$mirror" ] || { echo "fresh-machine: no bookworm mirror in this machine's apt sources (set KL_FRESH_MIRROR)" >&2; exit 2; }

work=${KL_FRESH_DIR:-$(mktemp -d /var/tmp/kl-fresh.XXXXXX)}
mkdir -p "$work" || { echo "fresh-machine: cannot create $work" >&2; exit 2; }
root=$work/root
mounts=()
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount -R "${mounts[$i]}" 2> /dev/null || umount -lR "${mounts[$i]}" 2> /dev/null
    done
    if [ "${KL_FRESH_KEEP:-0}" = 1 ]; then
        echo "fresh-machine: kept $root"
    elif ! grep -q " $work/" /proc/mounts; then # never delete through a mount that is still there
        rm -rf "$work"
    else
        echo "fresh-machine: a mount under $work is still there; not removing it" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount_in() { # mount_in TARGET MOUNT-ARGS...: mounts inside the root, remembered for cleanup
    local target=$root$1
    shift
    mkdir -p "$target" && mount "$@" "$target" && mounts+=("$target")
}

failures=0
verdict() { # verdict NAME PASS|FAIL DETAIL
    echo "fresh-machine: $1: $2${3:+ ($3)}" | tee -a "$work/verdicts.txt"
    [ "$2" = PASS ] || failures=$((failures + 1))
}
# KL_CTEST_EXCLUDE: by default the multi-architecture compile check (label archs: every rung for
# six targets) is left out; CI runs it here (KL_FRESH_CTEST_EXCLUDE="").
exclude=${KL_FRESH_CTEST_EXCLUDE-archs}
cmake_args=${KL_FRESH_CMAKE_ARGS-}
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        KL_CTEST_EXCLUDE="$exclude" KL_CMAKE_ARGS="$cmake_args" "$@"
}
as_user() {
    in_root runuser -u learner -- /usr/bin/env -i HOME=/home/learner PATH=/usr/bin:/bin LANG=C.UTF-8 \
        KL_CTEST_EXCLUDE="$exclude" KL_CMAKE_ARGS="$cmake_args" "$@"
}

# The bare system.
started=$(date +%s)
echo "fresh-machine: debootstrap --variant=minbase --include=git bookworm from $mirror into $root"
if ! debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1; then
    tail -5 "$work/debootstrap.log" >&2
    verdict debootstrap FAIL "log: $work/debootstrap.log"
    exit 1
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
for f in /etc/apt/apt.conf.d/*proxy* /etc/apt/apt.conf.d/*Proxy*; do [ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"; done
mount_in /proc -t proc proc
mount_in /sys -t sysfs sys
mount_in /dev --rbind /dev && mount --make-rslave "$root/dev"
mount_in /usr/local/cuda --bind "$cuda" && mount -o remount,bind,ro "$root/usr/local/cuda" ||
    { verdict toolkit FAIL "cannot bind-mount $cuda read-only"; exit 1; }
in_root useradd --create-home --shell /bin/bash learner
echo "fresh-machine: bare system ready in $(($(date +%s) - started)) s; $(in_root dpkg-query -W | wc -l) packages"

# The commit under test, cloned as a user would (a clone, not this working tree).
tree=/home/learner/kernel-ladder
git clone -q --no-local "$repo" "$root$tree" && git -C "$root$tree" checkout -q --detach "$commit" ||
    { verdict clone FAIL "cannot clone $commit"; exit 1; }
in_root chown -R learner:learner "$tree"

step() { # step NAME EXPECTED-EXIT WHO COMMAND...: runs it in the tree, keeps its log, prints a verdict
    local name=$1 expected=$2 who=$3
    shift 3
    local log=$work/$name.log t0 rc
    t0=$(date +%s)
    if [ "$who" = root ]; then
        in_root sh -c 'cd "$0" && exec "$@"' "$tree" "$@" > "$log" 2>&1
    else
        as_user sh -c 'cd "$0" && exec "$@"' "$tree" "$@" > "$log" 2>&1
    fi
    rc=$?
    last_rc=$rc
    last_log=$log
    last_seconds=$(($(date +%s) - t0))
    if [ "$rc" -eq "$expected" ]; then
        verdict "$name" PASS "exit $rc, ${last_seconds} s"
    else
        verdict "$name" FAIL "exit $rc, expected $expected, ${last_seconds} s; last lines of $log:"
        tail -15 "$log" | sed 's/^/    /'
    fi
}

# 1. A user without sudo: told what to install and how, nothing changed.
before=$(in_root dpkg-query -W | wc -l)
step "run.sh as a user without sudo" 2 learner scripts/run.sh
message=$(grep -c "as root run: apt-get update && apt-get install" "$last_log")
if [ "$last_rc" -eq 2 ] && { [ "$message" -ne 1 ] || [ "$(wc -l < "$last_log")" -ne 1 ] || [ "$(in_root dpkg-query -W | wc -l)" -ne "$before" ]; }; then
    verdict "run.sh as a user without sudo: one line, nothing installed" FAIL "$(head -3 "$last_log")"
fi

# 2. Root: the first README command (install, build, start).
step "run.sh as root" 3 root scripts/run.sh
grep -q "Next steps without a GPU" "$last_log" || verdict "run.sh as root: says what to do without a GPU" FAIL "no next step in $last_log"
grep -E "^setup: (installing|built in|[0-9]+ upgraded|Need to get|After this operation)" "$last_log" | sed 's/^/    /' | cut -c1-160

# 3. The test command as a user with sudo, in the tree they now own (no rebuild: root built it).
# One package is taken away first, so that set-up installs it again through sudo: the sudo path
# is exercised without a second build.
in_root chown -R learner:learner "$tree"
if in_root apt-get install -y -qq --no-install-recommends sudo > "$work/sudo.log" 2>&1 &&
    echo "learner ALL=(ALL) NOPASSWD: ALL" > "$root/etc/sudoers.d/learner" &&
    in_root apt-get purge -y -qq poppler-utils >> "$work/sudo.log" 2>&1; then
    step "test.sh as a user with sudo" 0 learner scripts/test.sh
    grep -q "^setup: installing 1 Debian packages: poppler-utils" "$last_log" ||
        verdict "test.sh as a user with sudo: set-up installs what is missing through sudo" FAIL "see $last_log"
    grep -E "tests passed|tests failed|skipped:|Total Test time" "$last_log" | sed 's/^/    /' | head -60
else
    verdict "sudo for the user" FAIL "see $work/sudo.log"
fi

echo "fresh-machine: commit $(git rev-parse --short "$commit"): $failures failed; $(($(date +%s) - started)) s in all; logs in $work (removed unless KL_FRESH_KEEP=1)"
[ "$failures" -eq 0 ]
