#!/usr/bin/env bash
# Throughput of ValidatePlay and Evaluate next to the gRPC floor (Health/Check), measured from
# outside with h2load against the release server, all three in one run on the same server.
#
#   scripts/h2load.sh                # ROUNDS=5 N=200000 CONNS=4 STREAMS=16 PORT=50077
#   BIN=path/to/dawgref scripts/h2load.sh   # another build (say, an older commit's), not rebuilt
#                                    # (LAB=path/to/dawgref-lab for BOTS=, beside it by default)
#   BOTS=8 scripts/h2load.sh         # then Health/Check p99 idle and while 8 bot-vs-bot games play
#                                    # as fast as the bots decide (`dawgref-lab bench botload`)
#   SERVE_ARGS="--bot-nice 19" …     # flags for the server measured
#   TLS=1 scripts/h2load.sh          # instead: ValidatePlay over TLS against plaintext, a second
#                                    # server of the same build serving TLS (deploy/tls's local CA)
#   OTLP=1 scripts/h2load.sh         # instead: ValidatePlay with traces exported against without, a
#                                    # second server of the same build exporting the calls it
#                                    # samples (1 in 100; DAWGREF_OTLP_SAMPLE_RATIO=1: every call)
#                                    # to `dawgref-lab otlp-sink` (counts spans, keeps none)
#
# The position is the 12th CGP line of `dawgref selfplay --games 1 --seed 5` (a mid-game English
# position), the play `O6 STRIG`. Request bodies are written here (protobuf by hand, gRPC framing:
# flag byte + 4-byte length). h2load counts HTTP 200, and a gRPC error is a 200 too, so each body
# is first sent once with nghttp, a real HTTP/2 client, and must come back with grpc-status 0.
# Needs h2load and nghttp (Debian's nghttp2-client), installed here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
N=${N:-200000}
CONNS=${CONNS:-4}
STREAMS=${STREAMS:-16}
PORT=${PORT:-50077}
if ! command -v h2load >/dev/null || ! command -v nghttp >/dev/null; then
  apt-get update -qq && apt-get install -y -qq nghttp2-client >/dev/null
fi
if [[ -z ${BIN:-} ]]; then
  cargo build --release --quiet -p dawgref -p dawgref-lab
  BIN=target/release/dawgref
fi
LAB=${LAB:-$(dirname "$BIN")/dawgref-lab}
WORK=$(mktemp -d)
# The bot load creates a game as soon as one ends, all from one client: no pace per client.
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir :memory: --lexicons en --games-per-minute 0 ${SERVE_ARGS:-} >"$WORK/server.log" 2>&1 &
SERVER=$!
TLS=${TLS:-0}
TLS_SERVER=
if (( TLS )); then
  deploy/tls/make-local-ca.sh "$WORK/tls" >/dev/null
  "$BIN" serve --listen "127.0.0.1:$((PORT + 1))" --tls-cert "$WORK/tls/server.pem" \
    --tls-key "$WORK/tls/server.key" --data-dir :memory: --lexicons en >"$WORK/tls-server.log" 2>&1 &
  TLS_SERVER=$!
fi
OTLP=${OTLP:-0}
OTLP_SERVER=
SINK=
if (( OTLP )); then
  "$LAB" otlp-sink --listen "127.0.0.1:$((PORT + 2))" >"$WORK/sink.log" 2>&1 &
  SINK=$!
  "$BIN" serve --listen "127.0.0.1:$((PORT + 1))" --otlp-endpoint "http://127.0.0.1:$((PORT + 2))" \
    --data-dir :memory: --lexicons en >"$WORK/otlp-server.log" 2>&1 &
  OTLP_SERVER=$!
fi
trap 'kill $SERVER $TLS_SERVER $OTLP_SERVER $SINK 2>/dev/null; rm -rf "$WORK"' EXIT
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
  [validate]=/dawgref.v1.AnalysisService/ValidatePlay
  [evaluate]=/dawgref.v1.AnalysisService/Evaluate
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

# TLS=1 or OTLP=1: ValidatePlay at the second server against the first, the two alternating
# (first, second, ..., first), each run of the second judged against the runs of the first on
# either side of it; a connection's handshake is paid once (h2load keeps its CONNS connections
# for the run), as a client's is.
if (( TLS || OTLP )); then
  if (( TLS )); then
    SECOND="https://127.0.0.1:$((PORT + 1))" FIRST_IS="plaintext" SECOND_IS="TLS"
  else
    SECOND="http://127.0.0.1:$((PORT + 1))" FIRST_IS="no traces" SECOND_IS="traces exported"
  fi
  for _ in $(seq 50); do
    nghttp -n "$SECOND/" >/dev/null 2>&1 && break || sleep 0.2
  done
  out=$(nghttp -v "${HEADERS[@]}" -d "$WORK/validate.bin" "$SECOND${PATHS[validate]}" 2>&1 | tr -d "\\000")
  grep -q 'grpc-status: 0' <<<"$out" || { echo "the second server did not answer grpc-status 0" >&2; exit 1; }
  rate() {  # rate URL
    h2load -n "$N" -c "$CONNS" -m "$STREAMS" -t 1 "${HEADERS[@]}" -d "$WORK/validate.bin" "$1${PATHS[validate]}" |
      awk '/^finished in/ {print int($4)}'
  }
  declare -a FIRSTR SECONDR
  FIRSTR[0]=$(rate "http://127.0.0.1:$PORT")
  for round in $(seq "$ROUNDS"); do
    SECONDR[$round]=$(rate "$SECOND")
    FIRSTR[$round]=$(rate "http://127.0.0.1:$PORT")
    ratio=$(awk -v t="${SECONDR[$round]}" -v a="${FIRSTR[$((round - 1))]}" -v b="${FIRSTR[$round]}" 'BEGIN { printf "%.3f", 2 * t / (a + b) }')
    echo "round $round: $FIRST_IS ${FIRSTR[$((round - 1))]} req/s, $SECOND_IS ${SECONDR[$round]} req/s, $FIRST_IS ${FIRSTR[$round]} req/s: ${ratio}x"
    echo "$ratio" >>"$WORK/ratios.txt"
  done
  sort -g "$WORK/ratios.txt" | awk -v a="$SECOND_IS" -v b="$FIRST_IS" '{ v[NR] = $1 } END { printf "median of %d bracketed rounds: ValidatePlay with %s %.3fx %s\n", NR, a, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, b }'
  if (( OTLP )); then
    sleep 6
    echo "the sink: $(tail -1 "$WORK/sink.log")"
  fi
  exit 0
fi
# This VM's neighbours move throughput by ±10-20% from one run to the next, slowly. So every
# ValidatePlay and Evaluate run is judged against the Health/Check runs on either side of it (a
# round is health, validate, evaluate; one more health run closes the last round), and the
# headline is the median of those bracketed ratios. The best of each call's runs is printed too,
# but a ratio of two maxima of noisy series says more about the noise than about the server.
# Server CPU per call (utime + stime from /proc, around each run) is the steadiest figure.
cpu() { awk '{ print $14 + $15 }' "/proc/$SERVER/stat"; }
TICK=$(getconf CLK_TCK)
declare -A RUN_RATE RUN_CPU BEST
run() {  # run NAME KEY: one h2load run, its rate and server µs per call kept under KEY
  local before after rate
  before=$(cpu)
  rate=$(h2load -n "$N" -c "$CONNS" -m "$STREAMS" -t 1 "${HEADERS[@]}" -d "$WORK/$1.bin" \
    "http://127.0.0.1:$PORT${PATHS[$1]}" | awk '/^finished in/ {print int($4)}')
  after=$(cpu)
  RUN_RATE[$2]=$rate
  RUN_CPU[$2]=$(awk -v t=$((after - before)) -v hz="$TICK" -v n="$N" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')
  if [[ -z ${BEST[$1]:-} || $rate -gt ${BEST[$1]} ]]; then BEST[$1]=$rate; fi
}
for round in $(seq "$ROUNDS"); do
  for name in health validate evaluate; do run "$name" "$name.$round"; done
done
run health "health.$((ROUNDS + 1))"
RATIOS="$WORK/ratios.txt"
for round in $(seq "$ROUNDS"); do
  h0=${RUN_RATE[health.$round]}; h1=${RUN_RATE[health.$((round + 1))]}
  c0=${RUN_CPU[health.$round]}; c1=${RUN_CPU[health.$((round + 1))]}
  line="round $round: health $h0 req/s (${c0} us/call)"
  for name in validate evaluate; do
    r=${RUN_RATE[$name.$round]}; c=${RUN_CPU[$name.$round]}
    ratio=$(awk -v r="$r" -v a="$h0" -v b="$h1" 'BEGIN { printf "%.3f", 2 * r / (a + b) }')
    gap=$(awk -v c="$c" -v a="$c0" -v b="$c1" 'BEGIN { printf "%+.1f", c - (a + b) / 2 }')
    echo "$name $ratio $gap" >>"$RATIOS"
    line+=", $name $r req/s (${c} us/call) = ${ratio}x"
  done
  echo "$line"
done
echo "closing health ${RUN_RATE[health.$((ROUNDS + 1))]} req/s (${RUN_CPU[health.$((ROUNDS + 1))]} us/call)"
median() {  # median of column $2 of the rows of $RATIOS named $1, printed with format $3
  awk -v n="$1" -v k="$2" '$1 == n { print $k }' "$RATIOS" | sort -g |
    awk -v f="$3" '{ v[NR] = $1 } END { printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for name in validate evaluate; do
  echo "median of $ROUNDS bracketed rounds: $name $(median "$name" 2 %.3f)x Health/Check," \
    "server CPU $(median "$name" 3 %+.1f) us/call over Health/Check"
done
for name in validate evaluate; do
  awk -v n="$name" -v r="${BEST[$name]}" -v h="${BEST[health]}" \
    'BEGIN { printf "best of runs: %s %d req/s over Health/Check %d = %.2fx\n", n, r, h, r / h }'
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
  "$LAB" bench botload --addr "127.0.0.1:$PORT" --games "$BOTS" --seconds $((SECONDS_EACH + 2)) >"$WORK/bots.txt" &
  BOTLOAD=$!
  sleep 1
  steady "$WORK/busy.log"
  wait $BOTLOAD
  idle=$(p99 "$WORK/idle.log"); busy=$(p99 "$WORK/busy.log")
  echo "Health/Check at $RATE req/s: p99 idle ${idle} us, with $BOTS bot games ${busy} us"
  awk -v i="$idle" -v b="$busy" 'BEGIN { printf "p99 with bots / idle: %.2fx\n", b / i }'
  cat "$WORK/bots.txt"
fi
