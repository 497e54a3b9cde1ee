#!/usr/bin/env bash
# dawgref against MAGPIE, one core each (README.md). Usage, from the repository's root; MAGPIE
# is unpacked from ../shared/vendor into vs-magpie/MAGPIE when it is not there:
#   vs-magpie/run.sh endgame 200          # bench endgame --solve-only, 5 s a position
#   vs-magpie/run.sh peg 100              # bench peg, one tile in the bag, 10 candidates, 1 s
#   vs-magpie/run.sh h2h DEALS SECONDS [SEED [VARIANT]]
#       the champion against MAGPIE's timed player, SECONDS a move each, DEALS deals (bags
#       seeded SEED, SEED+1, …; SEED 1 if not given), each played twice: 2×DEALS games;
#       VARIANT: the champion with changes on trial, as `match --bots champion+VARIANT` names them
#   vs-magpie/run.sh disagree DEALS SECONDS [SEED]
#       one game a deal (SEED 5001 if not given), both asked every turn; where they differ,
#       both moves judged by our simulation or endgame solver (README.md, "The disagreements")
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?endgame, peg, h2h or disagree}
here=vs-magpie
magpie=$here/MAGPIE
windata=$here/MAGPIE-DATA-4146a8e
vendor=${VENDOR:-../shared/vendor}
out=$here/out
mkdir -p "$out"

# MAGPIE's source and the three files of MAGPIE-DATA used here, from the vendored tarballs
# (../shared/vendor/README.md): nothing is fetched from the network.
unpack() { # <tarball> <the directory it makes>
    [ -d "$2" ] && return
    [ -f "$vendor/$1" ] || {
        echo "$2 is missing, and so is $vendor/$1 to unpack it from (see $vendor/README.md)" >&2
        exit 1
    }
    tar xzf "$vendor/$1" -C "$here"
}
unpack MAGPIE-183bebc4.tar.gz "$magpie"
unpack MAGPIE-DATA-4146a8e-subset.tar.gz "$windata"

cargo build --release -p dawgref-lab
lab=${CARGO_TARGET_DIR:-target}/release/dawgref-lab
make -C "$magpie" magpie BUILD=release >/dev/null

# MAGPIE's data, made from ours. The lexicon's name must begin like one of its English lists
# (NWL…) for it to take the English letter distribution; the leaves are named after it.
data=$magpie/data
mkdir -p "$data"/{lexica,layouts,letterdistributions,strategy}
cp $here/standard15.txt "$data/layouts/"
cp $here/english.csv "$data/letterdistributions/"
if [ ! -f "$data/lexica/NWL99.wmp" ]; then
    tr a-z A-Z < lexicons/en.txt > "$data/lexica/NWL99.txt"
    (cd "$magpie" && ./bin/magpie convert text2kwg NWL99 && ./bin/magpie convert text2wordmap NWL99 -threads 2)
fi
# Our leave values, converted again whenever they differ from the last ones converted.
$lab vs-magpie leaves > "$data/lexica/NWL99.csv.new"
if [ ! -f "$data/lexica/NWL99.klv2" ] || ! cmp -s "$data/lexica/NWL99.csv.new" "$data/lexica/NWL99.csv"; then
    mv "$data/lexica/NWL99.csv.new" "$data/lexica/NWL99.csv"
    (cd "$magpie" && ./bin/magpie convert csv2klv NWL99)
else
    rm "$data/lexica/NWL99.csv.new"
fi
# MAGPIE's own win table (its simulation turns final spreads into wins by it).
cp "$windata/data/strategy/winpct.csv" "$data/strategy/winpct.csv"

# MAGPIE's REPL runs a solve asynchronously and refuses commands sent during it: one process
# a position, the solve sent once the position is loaded. The end of its input stops a `peg`
# (not an `endgame`), so the input stays open for as long as the solve may take.
magpie_on() { # <cgp> <command> <seconds to keep the input open>
    (printf 'cgp %s -lex NWL99\n' "$1"; sleep 3; printf '%s\n' "$2"; sleep "$3") \
        | (cd "$magpie" && timeout $(( $3 + 60 )) taskset -c 1 ./bin/magpie 2>&1) | tr '\n' ' '
    echo
}

# The h2h player: MAGPIE's PlayChooser behind a line protocol (h2h_player.c), linked with the
# objects of MAGPIE's release build and its flags (the board and rack sizes shape its structs).
h2h_player() {
    local player=$magpie/bin/h2h-player
    if [ -x "$player" ] && [ "$player" -nt $here/h2h_player.c ] && [ "$player" -nt "$magpie/bin/magpie" ]; then
        return
    fi
    # shellcheck disable=SC2046
    cc -O3 -flto -march=native -DNDEBUG -Wall -DBOARD_DIM=15 -DRACK_SIZE=7 -I"$magpie/src" \
        -o "$player" $here/h2h_player.c $(find "$magpie/obj/release-b15-r7/src" -name '*.o') -lm -pthread \
        2> "$out/h2h-player-build.log" \
        || { cat "$out/h2h-player-build.log" >&2; exit 1; }
}

case $what in
endgame)
    positions=${2:-20}
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
    positions=${2:-20}
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
h2h)
    deals=${2:?h2h DEALS SECONDS [SEED]}
    seconds=${3:?h2h DEALS SECONDS [SEED]}
    seed=${4:-1}
    champion=${5:-}
    h2h_player
    games=$out/h2h-${seconds}s-$seed${champion:+-$champion}
    mkdir -p "$games"
    # Ours on core 0 (the lab, the champion on its one thread); MAGPIE's player on core 1.
    taskset -c 0 $lab vs-magpie h2h --deals "$deals" --seconds "$seconds" --seed "$seed" \
        ${champion:+--champion "$champion"} --magpie "$magpie" --magpie-core 1 --out "$games" \
        | tee "$games/progress.txt"
    ;;
disagree)
    deals=${2:?disagree DEALS SECONDS [SEED]}
    seconds=${3:?disagree DEALS SECONDS [SEED]}
    seed=${4:-5001}
    h2h_player
    study=$out/disagree-${seconds}s-$seed
    mkdir -p "$study"
    # Both asked every turn, ours on core 0 and MAGPIE's on core 1; the judging after the games
    # widens the lab to both cores itself.
    taskset -c 0 $lab vs-magpie disagree --deals "$deals" --seconds "$seconds" --seed "$seed" \
        --magpie "$magpie" --magpie-core 1 --out "$study" "${@:5}" | tee "$study/progress.txt"
    ;;
*) echo "endgame, peg, h2h or disagree" >&2; exit 2 ;;
esac
