# Sourced by the CI scripts: the helpers they share. Set before sourcing:
#   ci_name     how messages start (default: the script's file name)
#   ci_strict   1 makes `skip` exit 77 instead of 0 (a CI that must not skip)
ci_name=${ci_name:-$(basename "$0")}
# When the script started (sourcing time), for `step` and the scripts' own totals.
started=$(date +%s)
step_started=$started

# Stops the script: the check failed.
fail() { echo "$ci_name: FAIL: $*" >&2; exit 1; }

# Stops the script without failing: the machine cannot run the check (said on stderr, and added
# to $PUCK_CI_SKIPS when set, the list .ci/run prints at its end).
skip() {
  echo "$ci_name: SKIPPED: $*" >&2
  [ -z "${PUCK_CI_SKIPS:-}" ] || echo "$ci_name: $*" >> "$PUCK_CI_SKIPS"
  [ "${ci_strict:-0}" = 1 ] && exit 77
  exit 0
}

# The mount points under the directory $1, one per line, as this mount namespace sees them.
mounts_under() { awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts; }

# Starts a named step: says how long the previous one took and when this one starts.
step() {
  now=$(date +%s)
  [ -z "${step_name:-}" ] || printf '== %s: %s took %s s\n' "$ci_name" "$step_name" $((now - step_started))
  step_name=$*
  step_started=$now
  printf '\n== %s: %s (at %s s)\n' "$ci_name" "$*" $((now - started))
}
