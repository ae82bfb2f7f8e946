# Sourced by the CI scripts: the helpers they share. Set before sourcing:
#   ci_name     how messages start (default: the script's file name)
#   ci_strict   1 makes `skip` exit 77 instead of 0 (a CI that must not skip)
ci_name=${ci_name:-$(basename "$0")}

# Stops the script: the check failed.
fail() { echo "$ci_name: FAIL: $*" >&2; exit 1; }

# Stops the script without failing: the machine cannot run the check (said on stderr).
skip() {
  echo "$ci_name: SKIPPED: $*" >&2
  [ "${ci_strict:-0}" = 1 ] && exit 77
  exit 0
}

# The mount points under the directory $1, one per line, as this mount namespace sees them.
mounts_under() { awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts; }
