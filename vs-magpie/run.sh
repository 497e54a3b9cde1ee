#!/usr/bin/env bash
# dawgref's endgame and pre-endgame solvers next to MAGPIE's, on the same positions, one core
# each (README.md). Usage, from the repository's root, MAGPIE cloned into vs-magpie/MAGPIE:
#   vs-magpie/run.sh endgame 200     # bench endgame --solve-only, 5 s a position
#   vs-magpie/run.sh peg 100         # bench peg, one tile in the bag, 10 candidates, 1 s
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?endgame or peg}
positions=${2:-20}
here=vs-magpie
magpie=$here/MAGPIE
out=$here/out
mkdir -p "$out"
[ -d "$magpie" ] || { echo "clone MAGPIE into $magpie first (README.md)" >&2; exit 1; }

# MAGPIE, and its data made from ours: the lexicon's name must begin like one of its English
# lists (NWL…) for it to take the English letter distribution.
make -C "$magpie" magpie BUILD=release >/dev/null
data=$magpie/data
mkdir -p "$data"/{lexica,layouts,letterdistributions,strategy/default}
cp $here/standard15.txt "$data/layouts/"
cp $here/english.csv "$data/letterdistributions/"
if [ ! -f "$data/lexica/NWL99.wmp" ]; then
    tr a-z A-Z < lexicons/en.txt > "$data/lexica/NWL99.txt"
    printf 'A,0\n' > "$data/lexica/NWL99.csv"    # leaves: the solvers do not use them
    (cd "$magpie" && ./bin/magpie convert text2kwg NWL99 && ./bin/magpie convert csv2klv NWL99 \
        && ./bin/magpie convert text2wordmap NWL99 -threads 2)
fi
# A flat win table: the solvers do not read it, but the configuration must load one.
for _ in $(seq 100); do echo "2 1 1 1"; done > "$data/strategy/default/winpct.csv"

cargo build --release -p dawgref-lab
lab=target/release/dawgref-lab

# MAGPIE's REPL runs a solve asynchronously and refuses commands sent during it: one process
# a position, the solve sent once the position is loaded. The end of its input stops a `peg`
# (not an `endgame`), so the input stays open for as long as the solve may take.
magpie_on() { # <cgp> <command> <seconds to keep the input open>
    (printf 'cgp %s -lex NWL99\n' "$1"; sleep 3; printf '%s\n' "$2"; sleep "$3") \
        | (cd "$magpie" && timeout $(( $3 + 60 )) taskset -c 1 ./bin/magpie 2>&1) | tr '\n' ' '
    echo
}

case $what in
endgame)
    taskset -c 0 $lab bench endgame --solve-only --positions "$positions" --budget-ms 5000 --each \
        2> "$out/endgame-dawgref.txt" | tee "$out/endgame-summary.txt"
    grep '^seed' "$out/endgame-dawgref.txt" | while IFS= read -r line; do
        cgp=$(sed 's/.*; //; s/ lex [^;]*;$//' <<< "$line")
        echo "${line%%:*} | $(magpie_on "$cgp" 'endgame -eplies 25 -etlim 5 -threads 1 -ttfraction 0.02' 0 \
            | grep -o 'Endgame (depth: [0-9]*, time: [0-9.]*s' || echo 'no answer')"
    done | tee "$out/endgame-magpie.txt"
    total=$(wc -l < "$out/endgame-magpie.txt")
    exact=$(grep -c 'depth: 25, time: \([0-4]\.[0-9]*\|5\.000\)s' "$out/endgame-magpie.txt" || true)
    echo "MAGPIE: depth 25 (exact) within 5 s on $exact of $total positions"
    ;;
peg)
    taskset -c 0 $lab bench peg --positions "$positions" --bag 1 --candidates 10 --budget-ms 1000 --each \
        2> "$out/peg-dawgref.txt" | tee "$out/peg-summary.txt"
    grep '^seed' "$out/peg-dawgref.txt" | while IFS= read -r line; do
        cgp=$(sed 's/^[^;]*; //; s/ lex [^;]*;; .*//' <<< "$line")
        candidates=${line##*;; }
        echo "${line%%:*} | $(magpie_on "$cgp" "peg -pegonly $candidates -pegtopk all -pegtlim 1 -threads 1 -ttfraction 0.02" 4 \
            | grep -o 'eg *[0-9]*/[0-9]*' || echo 'no answer')"
    done | tee "$out/peg-magpie.txt"
    total=$(wc -l < "$out/peg-magpie.txt")
    complete=$(grep -cE 'eg *([0-9]+)/\1$' "$out/peg-magpie.txt" || true)
    echo "MAGPIE: every candidate complete on $complete of $total positions"
    ;;
*) echo "endgame or peg" >&2; exit 2 ;;
esac
