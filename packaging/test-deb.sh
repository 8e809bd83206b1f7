#!/usr/bin/env bash
# The Debian package, end to end, on a clean Debian 12: installs reprint_*.deb with apt
# into a fresh minbase root (debootstrap), runs both programs from there (the CLI demo, a
# backfill and its PDF review packet, the GUI's screenshot tour, headless), checks the man
# pages, the desktop entry, the AppStream metainfo and the bash completion, then purges
# the package and checks that it left nothing behind. Prints the time of every step.
#
#   packaging/test-deb.sh [options] DEB            test this package
#   packaging/test-deb.sh [options] --build-dir B  run cpack in build directory B, test its package
#
# options:
#   --keep              keep the test root afterwards (default: removed)
#   --with-recommends   let apt install the package's Recommends too (default: Depends only,
#                       which proves that they are enough)
#
# Needs root, debootstrap, chroot and the Debian mirror (the one this machine's apt uses,
# or REPRINT_DEB_MIRROR / REPRINT_DEB_SECURITY_MIRROR). The clean root is made once and
# kept, with apt's downloads, under REPRINT_DEB_CACHE (default /var/tmp/reprint-deb-test),
# so a second run only copies it. Remove that directory to start from a new debootstrap.
# Each run's copy lives on a tmpfs (4 GB at most; REPRINT_DEB_TMPFS=0 puts it on disk).
set -Eeuo pipefail

usage() { sed -n '8,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-1}"; }
die() {
  echo "test-deb: FAILED${CURRENT_STEP:+ in step '$CURRENT_STEP'}: $1" >&2
  shift
  for line in "$@"; do echo "  $line" >&2; done
  exit 1
}

DEB="" BUILD_DIR="" KEEP=0 RECOMMENDS=0
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || usage; BUILD_DIR=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --with-recommends) RECOMMENDS=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "test-deb: unknown option $1" >&2; usage ;;
    *) [ -z "$DEB" ] || usage; DEB=$1; shift ;;
  esac
done
[ -n "$DEB" ] || [ -n "$BUILD_DIR" ] || usage
[ -z "$DEB" ] || [ -z "$BUILD_DIR" ] || die "give a .deb or --build-dir, not both"

[ "$(id -u)" -eq 0 ] || die "needs root (it debootstraps a Debian root, mounts /proc in it and chroots)" \
  "Run: sudo $0 $*"
for tool in debootstrap chroot mount umount mountpoint flock desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null ||
    die "'$tool' is not installed" "Run packaging/install-deps.sh (it installs debootstrap, desktop-file-utils and appstream)."
done

CACHE=${REPRINT_DEB_CACHE:-/var/tmp/reprint-deb-test}
BASE=$CACHE/base-bookworm-minbase
ROOT=$CACHE/root
ARCHIVES=$CACHE/archives
mkdir -p "$CACHE" "$ARCHIVES/partial"
exec 9>"$CACHE/lock"
flock -n 9 || die "another test-deb.sh is using $CACHE" "Wait for it, or point REPRINT_DEB_CACHE at another directory."

# --- the mirror this machine's apt uses (deb822 .sources or one-line .list files) ---
apt_mirror() {  # $1: the archive's last path component (debian, debian-security)
  local found
  found=$( { grep -hsiE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources | sed 's/^[^:]*://' | tr ' \t' '\n\n'
             grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | tr ' \t' '\n\n'
           } | grep -E "^https?://[^ ]+/$1/?\$" | head -n1 || true)
  echo "${found%/}"
}
MIRROR=${REPRINT_DEB_MIRROR:-$(apt_mirror debian)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${REPRINT_DEB_SECURITY_MIRROR:-$(apt_mirror debian-security)}

# --- steps and their times ---
STEPS=() TIMES=() CURRENT_STEP=""
now() { date +%s.%N; }
step() {  # step NAME FUNCTION
  CURRENT_STEP=$1
  echo
  echo "=== $1"
  local t0; t0=$(now)
  "$2"
  local dt; dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  STEPS+=("$1") TIMES+=("$dt")
  echo "--- $1: ok in $dt s"
  CURRENT_STEP=""
}
trap 'die "command failed (exit $?) at line $LINENO: $BASH_COMMAND" "The output above says why."' ERR

# Runs a command inside the test root, in a clean environment.
in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \
    TERM=dumb DEBIAN_FRONTEND=noninteractive XDG_RUNTIME_DIR=/tmp/runtime-root "$@"
}

MOUNTS=(. proc dev/pts dev/shm var/cache/apt/archives)  # ".": the root itself, when on tmpfs
release_root() {  # [keep]: leave the root's own tmpfs mounted (--keep)
  # Processes still running inside the test root are ours (a demo server left by a failed
  # step): stop them, by process id, before unmounting.
  local pids=() p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && pids+=("${p#/proc/}")
  done
  if [ ${#pids[@]} -gt 0 ]; then
    echo "test-deb: stopping processes left in the test root: ${pids[*]}" >&2
    kill -TERM "${pids[@]}" 2>/dev/null || true
    sleep 2
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    [ "${1:-}" = keep ] && [ "${MOUNTS[i]}" = . ] && continue
    if mountpoint -q "$ROOT/${MOUNTS[i]}" 2>/dev/null; then
      umount "$ROOT/${MOUNTS[i]}" 2>/dev/null || umount -l "$ROOT/${MOUNTS[i]}" ||
        echo "test-deb: could not unmount $ROOT/${MOUNTS[i]}; unmount it by hand before removing $ROOT" >&2
    fi
  done
}
remove_root() {
  release_root
  for m in "${MOUNTS[@]}"; do
    if mountpoint -q "$ROOT/$m" 2>/dev/null; then
      echo "test-deb: $ROOT/$m is still mounted; leaving $ROOT in place" >&2
      return 0
    fi
  done
  # --one-file-system: never follow a mount out of the test root.
  rm -rf --one-file-system "$ROOT"
}
on_exit() {
  local rc=$?
  trap - ERR
  if [ "$rc" -eq 0 ] && [ "$FINISHED" -ne 1 ]; then
    rc=1
    echo "test-deb: interrupted${CURRENT_STEP:+ in step '$CURRENT_STEP'}" >&2
  fi
  if [ "$KEEP" -eq 1 ] && [ -d "$ROOT" ]; then
    release_root keep
    if mountpoint -q "$ROOT"; then
      echo "test-deb: kept the test root $ROOT (--keep; a tmpfs: \`umount $ROOT\` frees it, the next run does too)"
    else
      echo "test-deb: kept the test root $ROOT (--keep)"
    fi
  elif [ -d "$ROOT" ]; then
    local t0; t0=$(now)
    remove_root
    STEPS+=("remove the test root") TIMES+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')")
  fi
  if [ ${#STEPS[@]} -gt 0 ]; then
    echo
    echo "test-deb: step times"
    local i
    for i in "${!STEPS[@]}"; do printf '  %7s s  %s\n' "${TIMES[i]}" "${STEPS[i]}"; done
  fi
  [ "$rc" -eq 0 ] && echo "test-deb: PASSED" || echo "test-deb: FAILED (exit $rc)" >&2
  exit "$rc"
}
FINISHED=0
trap on_exit EXIT

# ------------------------------------------------------------------ the steps

step_cpack() {
  [ -f "$BUILD_DIR/CPackConfig.cmake" ] ||
    die "$BUILD_DIR is not a configured build directory (no CPackConfig.cmake)" \
      "Configure and build it first: cmake --preset release -B $BUILD_DIR -DREPRINT_BUILD_TESTS=OFF && cmake --build $BUILD_DIR"
  (cd "$BUILD_DIR" && cpack -G DEB) || die "cpack failed in $BUILD_DIR" "Is the build complete? Run: cmake --build $BUILD_DIR"
  DEB=$(ls -t "$BUILD_DIR"/reprint_*.deb 2>/dev/null | head -n1)
  [ -n "$DEB" ] || die "cpack wrote no reprint_*.deb in $BUILD_DIR"
}

step_base() {
  if [ -f "$BASE/.reprint-base-ready" ]; then
    echo "reusing the clean root made on $(cat "$BASE/.reprint-base-ready")"
    return 0
  fi
  echo "debootstrap --variant=minbase bookworm from $MIRROR (once; later runs reuse it)"
  rm -rf --one-file-system "$BASE.tmp"
  debootstrap --variant=minbase bookworm "$BASE.tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; the last lines of $CACHE/debootstrap.log:" "$(tail -n 5 "$CACHE/debootstrap.log")" \
      "Is $MIRROR reachable from here? Set REPRINT_DEB_MIRROR to a Debian mirror that is."
  # A chroot has no init: packages must not try to start their services (postgresql's
  # own cluster); Reprint's demo starts its private one itself.
  printf '#!/bin/sh\nexit 101\n' >"$BASE.tmp/usr/sbin/policy-rc.d"
  chmod 755 "$BASE.tmp/usr/sbin/policy-rc.d"
  rm -f "$BASE.tmp"/var/cache/apt/archives/*.deb
  date -u '+%Y-%m-%d %H:%M UTC from '"$MIRROR" >"$BASE.tmp/.reprint-base-ready"
  mv "$BASE.tmp" "$BASE"
}

step_root() {
  [ -d "$ROOT" ] && remove_root
  [ ! -e "$ROOT" ] || die "$ROOT is left from an earlier run and could not be removed" "Unmount what is mounted under it, then remove it."
  mkdir -p "$ROOT"
  # In memory unless REPRINT_DEB_TMPFS=0: what the test writes (the packages, two demo
  # clusters) never waits for the disk, and removing it is an unmount.
  if [ "${REPRINT_DEB_TMPFS:-1}" != 0 ] && mount -t tmpfs -o size=4g,mode=755 tmpfs "$ROOT"; then
    echo "test root on tmpfs: $ROOT"
  else
    echo "test root on disk: $ROOT"
  fi
  cp -a "$BASE/." "$ROOT/"
  mount -t proc proc "$ROOT/proc"
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$ROOT/dev/pts"
  mount -t tmpfs -o mode=1777 tmpfs "$ROOT/dev/shm"  # PostgreSQL's shared memory
  mount --bind "$ARCHIVES" "$ROOT/var/cache/apt/archives"  # apt's downloads, kept between runs
  cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
  {
    echo "deb $MIRROR bookworm main"
    echo "deb $MIRROR bookworm-updates main"
    [ -z "$SECURITY" ] || echo "deb $SECURITY bookworm-security main"
  } >"$ROOT/etc/apt/sources.list"
  # A throwaway root: dpkg need not fsync every file it unpacks (that is most of the
  # install's time on a slow disk).
  echo force-unsafe-io >"$ROOT/etc/dpkg/dpkg.cfg.d/reprint-test-unsafe-io"
  mkdir -p -m 700 "$ROOT/tmp/runtime-root"
  cp "$DEB" "$ROOT/tmp/"
}

step_install() {
  in_root apt-get update -qq --error-on=any ||
    die "apt-get update in the test root failed" "Is $MIRROR reachable? Set REPRINT_DEB_MIRROR to a mirror that is."
  local flags=(-y -q -o Dpkg::Use-Pty=0)
  [ "$RECOMMENDS" -eq 1 ] || flags+=(--no-install-recommends)
  in_root apt-get install "${flags[@]}" "/tmp/$(basename "$DEB")" >"$CACHE/apt-install.log" 2>&1 ||
    die "apt-get install of $(basename "$DEB") failed; the last lines of $CACHE/apt-install.log:" \
      "$(tail -n 15 "$CACHE/apt-install.log")" \
      "A dependency that Debian 12 does not have is named there: fix CPACK_DEBIAN_PACKAGE_DEPENDS in packaging/CMakeLists.txt." \
      "A download that failed: is $MIRROR reachable? (REPRINT_DEB_MIRROR chooses another)"
  grep -E '^(Setting up|Unpacking) reprint ' "$CACHE/apt-install.log" || true
  echo "installed $(grep -c '^Setting up ' "$CACHE/apt-install.log") packages; Depends: $(in_root dpkg-query -W -f='${Depends}' reprint)"
  for p in /usr/bin/reprint /usr/bin/reprint-review; do
    [ -x "$ROOT$p" ] || die "$p is not installed (or not executable)" "Check the install() rules in app/CMakeLists.txt."
  done
  local which; which=$(in_root sh -c 'command -v reprint && command -v reprint-review')
  [ "$which" = $'/usr/bin/reprint\n/usr/bin/reprint-review' ] || die "reprint and reprint-review are not on PATH as /usr/bin/...: $which"
  local missing
  missing=$(in_root sh -c 'ldd /usr/bin/reprint /usr/bin/reprint-review | grep "not found"' || true)
  [ -z "$missing" ] || die "shared libraries missing after apt install:" "$missing" "Is CPACK_DEBIAN_PACKAGE_SHLIBDEPS on?"
}

step_cli_help() {
  local help
  help=$(in_root reprint --help) || die "reprint --help failed"
  grep -q '^  demo ' <<<"$help" || die "reprint --help does not list the demo command:" "$help"
  in_root reprint --version
  in_root reprint demo --help >/dev/null || die "reprint demo --help failed"
}

DEMO_CLI=/var/tmp/reprint-demo-cli
step_cli_demo() {
  in_root reprint demo --dir "$DEMO_CLI" --scale 0.05 ||
    die "reprint demo did not start the demo warehouse" "Its own message is above; it needs postgresql-15 (initdb, pg_ctl) and runs the server as 'postgres' when root."
  [ -f "$ROOT$DEMO_CLI/demo.yaml" ] || die "reprint demo wrote no $DEMO_CLI/demo.yaml"
}

step_cli_status() {
  local out
  out=$(in_root reprint status --spec "$DEMO_CLI/demo.yaml" --model fct_order_lines --from 2026-03-01 --to 2026-03-31) ||
    die "reprint status on the demo warehouse failed"
  echo "$out" | head -n 5
  grep -q '2026-03-10' <<<"$out" || die "reprint status printed no row for 2026-03-10:" "$out"
}

step_cli_backfill_report() {
  in_root reprint backfill --spec "$DEMO_CLI/demo.yaml" --model fct_order_lines --from 2026-03-09 --to 2026-03-14 >/dev/null ||
    die "reprint backfill of the demo's damaged window failed"
  local id
  id=$(in_root reprint history --spec "$DEMO_CLI/demo.yaml" --format csv | awk -F, 'NR > 1 && $1 + 0 > max { max = $1 + 0 } END { print max + 0 }')
  [ "$id" -gt 0 ] || die "reprint history lists no backfill after the backfill"
  in_root reprint report --spec "$DEMO_CLI/demo.yaml" "$id" --out /tmp/packet.pdf ||
    die "reprint report (the PDF review packet: QtGui offscreen and fonts) failed"
  [ "$(head -c 5 "$ROOT/tmp/packet.pdf")" = "%PDF-" ] || die "reprint report wrote no PDF to /tmp/packet.pdf"
  echo "review packet of backfill $id: $(stat -c %s "$ROOT/tmp/packet.pdf") bytes"
}

step_cli_stop() {
  in_root reprint demo --dir "$DEMO_CLI" --stop || die "reprint demo --stop failed"
}

DEMO_GUI=/var/tmp/reprint-demo-gui
step_gui_tour() {
  # --screenshots plays the demo story through the real screens and exits by itself; the
  # timeout only guards against a hang.
  in_root env QT_QPA_PLATFORM=offscreen timeout 900 \
    reprint-review --demo --dir "$DEMO_GUI" --scale 0.05 --screenshots /tmp/tour ||
    die "reprint-review's headless tour failed (exit $?; 124 is the 900 s timeout)" "Its own message is above."
  local shots; shots=$(ls "$ROOT/tmp/tour"/*.png 2>/dev/null | wc -l)
  [ "$shots" -ge 10 ] || die "the tour wrote $shots screenshots to /tmp/tour, expected 10"
  echo "tour: $shots screenshots"
  in_root reprint demo --dir "$DEMO_GUI" --stop || die "reprint demo --stop of the GUI's demo failed"
}

step_files() {
  local page
  for page in reprint reprint-review; do
    local f=$ROOT/usr/share/man/man1/$page.1.gz
    [ -s "$f" ] || die "the man page $page(1) is not installed (/usr/share/man/man1/$page.1.gz)"
    zcat "$f" | grep -q '^\.TH ' || die "/usr/share/man/man1/$page.1.gz is not a man page"
    if command -v man >/dev/null; then
      local warnings; warnings=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null || true)
      [ -z "$warnings" ] || die "man warns about $page(1):" "$warnings"
    fi
    echo "man page $page(1): $(zcat "$f" | grep -c '^\.TP') entries"
  done
  local desktop=$ROOT/usr/share/applications/reprint-review.desktop
  [ -f "$desktop" ] || die "no /usr/share/applications/reprint-review.desktop"
  desktop-file-validate "$desktop" || die "desktop-file-validate rejects reprint-review.desktop (above)"
  local icon; icon=$(sed -n 's/^Icon=//p' "$desktop")
  [ -f "$ROOT/usr/share/icons/hicolor/scalable/apps/$icon.svg" ] ||
    die "the desktop entry's Icon=$icon is not installed as /usr/share/icons/hicolor/scalable/apps/$icon.svg"
  local metainfo; metainfo=$(ls "$ROOT"/usr/share/metainfo/*.metainfo.xml 2>/dev/null | head -n1)
  [ -n "$metainfo" ] || die "no AppStream metainfo in /usr/share/metainfo"
  appstreamcli validate --no-net "$metainfo" || die "appstreamcli validate rejects $(basename "$metainfo") (above)"
  grep -q '<launchable type="desktop-id">reprint-review.desktop</launchable>' "$metainfo" ||
    die "the metainfo does not launch reprint-review.desktop"
  local completion=/usr/share/bash-completion/completions/reprint
  [ -f "$ROOT$completion" ] || die "no bash completion at $completion"
  local got
  got=$(in_root bash -c "source $completion
    t() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _reprint; echo \"\${COMPREPLY[*]}\"; }
    t reprint st; t reprint status --mo; t reprint status --format ''; t reprint demo --st") ||
    die "the bash completion fails in bash"
  [ "$got" = $'status\n--model\ntable json csv\n--stop' ] ||
    die "the bash completion completes wrongly; got:" "$got" "expected: status / --model / table json csv / --stop"
  echo "bash completion: ok"
}

step_purge() {
  local files; files=$(in_root dpkg-query -L reprint)
  in_root apt-get purge -y -q -o Dpkg::Use-Pty=0 reprint >"$CACHE/apt-purge.log" 2>&1 ||
    die "apt-get purge reprint failed; see $CACHE/apt-purge.log" "$(tail -n 10 "$CACHE/apt-purge.log")"
  [ ! -e "$ROOT/usr/bin/reprint" ] && [ ! -e "$ROOT/usr/bin/reprint-review" ] ||
    die "/usr/bin/reprint or /usr/bin/reprint-review is still there after apt-get purge"
  local f left=()
  while IFS= read -r f; do
    [ -n "$f" ] && [ -f "$ROOT$f" ] && left+=("$f")
  done <<<"$files"
  [ ${#left[@]} -eq 0 ] || die "files of the package are left after purge:" "${left[@]}"
  ! in_root dpkg-query -W -f='${Status}' reprint 2>/dev/null | grep -q 'ok installed' ||
    die "dpkg still lists reprint as installed"
}

# ------------------------------------------------------------------ run

echo "test-deb: mirror $MIRROR${SECURITY:+ (security: $SECURITY)}; cache $CACHE"
[ -z "$BUILD_DIR" ] || step "cpack in $BUILD_DIR" step_cpack
[ -f "$DEB" ] || die "no package at '$DEB'" "Build one: cmake --build B && (cd B && cpack), or pass --build-dir B."
DEB=$(readlink -f "$DEB")
echo "test-deb: package $DEB"
step "clean Debian 12 root (debootstrap, cached)" step_base
step "fresh copy of the root, mounts" step_root
step "apt-get install ./$(basename "$DEB")" step_install
step "reprint --help" step_cli_help
step "reprint demo --scale 0.05" step_cli_demo
step "reprint status" step_cli_status
step "reprint backfill + report (PDF)" step_cli_backfill_report
step "reprint demo --stop" step_cli_stop
step "reprint-review --demo --screenshots (offscreen)" step_gui_tour
step "man pages, desktop entry, metainfo, completion" step_files
step "apt-get purge reprint" step_purge
FINISHED=1
