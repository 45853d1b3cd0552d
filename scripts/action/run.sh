#!/usr/bin/env bash
# The GitHub Action's run step (action.yml): runs the suite (or one shard, or merges shards) and writes
# the reports. It never fails the step itself: it records the exit code and its meaning (outcome) for the
# last step, so the reports are uploaded and commented first.
# Inputs (environment): ADAPTER, REPORTS (folder), EXPECTED_FAILURES (file, optional), WORLD (a profile
# name or file, optional), SHARD (I/N,
# optional), MERGE (a glob of shard JSON reports, optional: merge instead of run), GITHUB_OUTPUT.
# Runs on the bash 3.2 of macOS runners: there "${options[@]}" of an empty array is an unbound variable
# under set -u, so it is written ${options[@]+"${options[@]}"}.
set -uo pipefail

reports="${REPORTS:-conformance-report}"
mkdir -p "$reports"
options=()
[ -n "${EXPECTED_FAILURES:-}" ] && options=(--expected-failures "$EXPECTED_FAILURES")
[ -n "${WORLD:-}" ] && options+=(--world "$WORLD")

if [ -n "${MERGE:-}" ]; then
    # shellcheck disable=SC2086  # the glob is meant to expand
    session-conformance merge $MERGE \
        --report "json=$reports/report.json" --report "junit=$reports/report.junit.xml" \
        --report "markdown=$reports/report.md" --report "html=$reports/report.html" \
        --report "badge=$reports/badge.svg"
    status=$?
elif [ -n "${SHARD:-}" ]; then
    # A shard's JSON is all `merge` needs; its name carries the shard index.
    session-conformance run --adapter "$ADAPTER" --shard "$SHARD" ${options[@]+"${options[@]}"} \
        --report "json=$reports/shard-${SHARD%%/*}.json"
    status=$?
else
    session-conformance run --adapter "$ADAPTER" ${options[@]+"${options[@]}"} \
        --report "json=$reports/report.json" --report "junit=$reports/report.junit.xml" \
        --report "markdown=$reports/report.md" --report "html=$reports/report.html" \
        --report "badge=$reports/badge.svg"
    status=$?
fi
echo "exit-code=$status" >> "${GITHUB_OUTPUT:-/dev/null}"
# The exit code's meaning (README, "Exit codes"): a broken job (2, 3) is told from a broken client (1).
case "$status" in
    0) outcome=conformant ;;
    1) outcome=not-conformant ;;
    2) outcome=usage-or-spec-error
       echo "::error title=session-conformance: usage or spec error (exit 2)::the job's inputs or the specs are wrong, not the client; see the log above" ;;
    3) outcome=adapter-not-started
       echo "::error title=session-conformance: the adapter could not be started (exit 3)::the adapter command failed before its 'hello' (not found, not executable, crashed, or no protocol); no case ran" ;;
    130|143) outcome=interrupted ;;
    *) outcome=unknown ;;
esac
echo "outcome=$outcome" >> "${GITHUB_OUTPUT:-/dev/null}"
artifact="conformance-report"
[ -n "${SHARD:-}" ] && [ -z "${MERGE:-}" ] && artifact="conformance-shard-${SHARD%%/*}"
echo "artifact=$artifact" >> "${GITHUB_OUTPUT:-/dev/null}"
if [ -f "$reports/report.md" ]; then
    echo "markdown=$reports/report.md" >> "${GITHUB_OUTPUT:-/dev/null}"
    [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$reports/report.md" >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
