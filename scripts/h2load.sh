#!/usr/bin/env bash
# Throughput of ValidatePlay and Evaluate next to the gRPC floor (Health/Check), measured from
# outside with h2load against the release server, all three in one run on the same server.
#
#   scripts/h2load.sh                # ROUNDS=3 N=200000 CONNS=4 STREAMS=16 PORT=50077
#   BIN=path/to/dawgref scripts/h2load.sh   # another build (say, an older commit's), not rebuilt
#   BOTS=8 scripts/h2load.sh         # then Health/Check p99 idle and while 8 bot-vs-bot games play
#                                    # as fast as the bots decide (`dawgref bench botload`)
#
# The position is the 12th CGP line of `dawgref selfplay --games 1 --seed 5` (a mid-game English
# position), the play `O6 STRIG`. Request bodies are written here (protobuf by hand, gRPC framing:
# flag byte + 4-byte length). h2load counts HTTP 200, and a gRPC error is a 200 too, so each body
# is first sent once with nghttp, a real HTTP/2 client, and must come back with grpc-status 0.
# Needs h2load and nghttp (Debian's nghttp2-client), installed here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
CONNS=${CONNS:-4}
STREAMS=${STREAMS:-16}
PORT=${PORT:-50077}
if ! command -v h2load >/dev/null || ! command -v nghttp >/dev/null; then
  apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null
fi
if [[ -z ${BIN:-} ]]; then
  cargo build --release --quiet
  BIN=target/release/dawgref
fi
WORK=$(mktemp -d)
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir :memory: --lexicons en >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
"$BIN" selfplay --games 1 --seed 5 --cgp-out "$WORK/positions.cgp" >/dev/null
CGP=$(sed -n 12p "$WORK/positions.cgp")
PLAY=${PLAY:-O6 STRIG}

python3 - "$WORK" "$CGP" "$PLAY" <<'PY'
import struct, sys
work, cgp, play = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def field(number, payload):  # a length-delimited field
    return varint(number << 3 | 2) + varint(len(payload)) + payload
position = field(2, cgp)                      # Position.cgp
play_msg = field(1, play)                     # Play.notation
validate = field(1, position) + field(2, play_msg)   # ValidatePlayRequest / EvaluateRequest
bodies = {"health": b"", "validate": validate, "evaluate": validate}
for name, msg in bodies.items():
    with open(f"{work}/{name}.bin", "wb") as f:
        f.write(b"\x00" + struct.pack(">I", len(msg)) + msg)
PY

for _ in $(seq 50); do
  nghttp -n "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break || sleep 0.2
done
declare -A PATHS=(
  [health]=/grpc.health.v1.Health/Check
  [validate]=/dawgref.v1.Analysis/ValidatePlay
  [evaluate]=/dawgref.v1.Analysis/Evaluate
)
HEADERS=(-H 'content-type: application/grpc' -H 'te: trailers')
for name in health validate evaluate; do
  out=$(nghttp -v "${HEADERS[@]}" -d "$WORK/$name.bin" "http://127.0.0.1:$PORT${PATHS[$name]}" 2>&1 | tr -d "\\000")
  if ! grep -q 'grpc-status: 0' <<<"$out"; then
    echo "$name: the server did not answer grpc-status 0:" >&2
    grep -E 'grpc-(status|message)' <<<"$out" >&2 || echo "$out" >&2
    exit 1
  fi
done
echo "position: $CGP"
echo "play: $PLAY; h2load -n $N -c $CONNS -m $STREAMS -t 1; $ROUNDS rounds"
declare -A BEST
for round in $(seq "$ROUNDS"); do
  for name in health validate evaluate; do
    rate=$(h2load -n "$N" -c "$CONNS" -m "$STREAMS" -t 1 "${HEADERS[@]}" -d "$WORK/$name.bin" \
      "http://127.0.0.1:$PORT${PATHS[$name]}" | awk '/^finished in/ {print int($4)}')
    echo "round $round $name $rate req/s"
    if [[ -z ${BEST[$name]:-} || $rate -gt ${BEST[$name]} ]]; then BEST[$name]=$rate; fi
  done
done
echo "best of $ROUNDS: Health/Check ${BEST[health]} req/s"
for name in validate evaluate; do
  awk -v n="$name" -v r="${BEST[$name]}" -v h="${BEST[health]}" \
    'BEGIN { printf "best of rounds: %s %d req/s = %.2fx Health/Check\n", n, r, r / h }'
done

# Latency of the gRPC floor while bots play: Health/Check at a steady RATE (requests/s over 4
# connections, so the server is busy but not saturated: p99 then measures interference, not
# queue depth), idle and then while BOTS bot-vs-bot games play as fast as the bots decide. The
# p99 comes from h2load's per-request log (column 3: microseconds).
BOTS=${BOTS:-0}
if (( BOTS > 0 )); then
  RATE=${RATE:-8000}
  SECONDS_EACH=${SECONDS_EACH:-10}
  p99() { sort -n -k3 "$1" | awk '{ v[NR] = $3 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%d", v[i] }'; }
  steady() {
    h2load -D "$SECONDS_EACH" -c 4 -m 1 -t 1 --rps $((RATE / 4)) "${HEADERS[@]}" -d "$WORK/health.bin" \
      --log-file "$1" "http://127.0.0.1:$PORT${PATHS[health]}" >/dev/null
  }
  steady "$WORK/idle.log"
  "$BIN" bench botload --addr "127.0.0.1:$PORT" --games "$BOTS" --seconds $((SECONDS_EACH + 2)) >"$WORK/bots.txt" &
  BOTLOAD=$!
  sleep 1
  steady "$WORK/busy.log"
  wait $BOTLOAD
  idle=$(p99 "$WORK/idle.log"); busy=$(p99 "$WORK/busy.log")
  echo "Health/Check at $RATE req/s: p99 idle ${idle} us, with $BOTS bot games ${busy} us"
  awk -v i="$idle" -v b="$busy" 'BEGIN { printf "p99 with bots / idle: %.2fx\n", b / i }'
  cat "$WORK/bots.txt"
fi
