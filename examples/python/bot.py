"""A dawgref bot to copy: takes a seat, follows the game, plays, challenges, and ends cleanly.

    ./setup                     # once: .venv with grpcio, and the stubs in gen/
    .venv/bin/python bot.py --game http://127.0.0.1:50051/games/<id>    # joins the open seat
    .venv/bin/python bot.py --game <id> --token <seat token>           # or plays a seat it has
    .venv/bin/python bot.py --tournament https://host/tournaments/<slug> --token <player token>
    .venv/bin/python bot.py --lobby --server host:port --token <bot account token>

The server is the link's (https: TLS, verified against --ca FILE, else the system's roots), or
--server. Exit status: 0 when the game (or the player's tournament, or --max-games lobby games)
is over, 1 when the server stays unreachable, 2 on a refusal.
"""

import argparse
import os
import sys
import threading
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))
from dawgref.v1 import analysis_pb2, bots_pb2, common_pb2, games_pb2, lexicons_pb2, tournaments_pb2  # noqa: E402
from dawgref.v1 import analysis_pb2_grpc, bots_pb2_grpc, games_pb2_grpc, lexicons_pb2_grpc  # noqa: E402
from dawgref.v1 import tournaments_pb2_grpc  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

# Calls the bot retries (the server restarting, a replica handing the game over): it waits,
# then follows the game again from the last event it saw.
RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


def choose(analysis, game_id, auth):
    """The play to make, or None to pass. PUT YOUR ENGINE HERE: this one asks the server for
    its best-scoring play (GenerateMoves' first)."""
    request = analysis_pb2.GenerateMovesRequest(position=common_pb2.Position(game_id=game_id), limit=1)
    for generated in analysis.GenerateMoves(request, metadata=auth, timeout=30):
        return generated.play
    return None


class Bot:
    def __init__(self, channel, game_id, token):
        self.games = games_pb2_grpc.GamesServiceStub(channel)
        self.analysis = analysis_pb2_grpc.AnalysisServiceStub(channel)
        self.lexicons = lexicons_pb2_grpc.LexiconsServiceStub(channel)
        self.game_id, self.auth = game_id, [("authorization", f"Bearer {token}")]
        self.next_event = 0  # the first event not yet seen: where a watch resumes
        self.judged = set()  # plays (event numbers) already judged

    def view(self):
        request = games_pb2.GetGameRequest(game_id=self.game_id)
        return self.games.GetGame(request, metadata=self.auth, timeout=10).view

    def on_event(self, event, view):
        """A play by someone else is challenged when a word of it is not in the game's lexicon
        (True: the game changed)."""
        if event.kind != "play" or event.seat == view.my_seat or event.number in self.judged:
            return False
        self.judged.add(event.number)
        if not view.challengeable:
            return False
        verdict = self.lexicons.JudgeWords(
            lexicons_pb2.JudgeWordsRequest(lexicon=view.lexicon, words=event.words), timeout=10)
        if not verdict.acceptable:
            request = games_pb2.ChallengeRequest(game_id=self.game_id, request_id=f"challenge-{event.number}")
            answer = self.games.Challenge(request, metadata=self.auth, timeout=30)
            print(f"challenged {' '.join(event.words)}: {'stands' if answer.acceptable else 'off'}")
            return True
        return False

    def move(self, view):
        """Play when it is this seat's turn (after a play that went out, a pass accepts it)."""
        if view.over or view.paused or view.to_move != view.my_seat:
            return
        play = None if view.awaiting_final_challenge else choose(self.analysis, self.game_id, self.auth)
        request = games_pb2.SubmitTurnRequest(
            game_id=self.game_id, expected_turn=view.turn, request_id=f"turn-{view.turn}")
        if play is None:
            getattr(request, "pass").SetInParent()  # `pass` is a Python keyword
        else:
            request.play.CopyFrom(play)
        try:
            answer = self.games.SubmitTurn(request, metadata=self.auth, timeout=30)
            print(f"turn {view.turn}: {play.notation if play else 'pass'} {answer.points}")
        except grpc.RpcError as e:
            # The turn moved on meanwhile (ABORTED): the next event says what happened.
            if e.code() != grpc.StatusCode.ABORTED:
                raise

    def play(self):
        """Follow the game to its end: the view now, then every event as it comes."""
        view = self.view()
        if self.next_event == 0:
            self.next_event = view.events
        self.move(view)
        if view.over:
            return view
        watch = games_pb2.WatchGameRequest(game_id=self.game_id, from_event=self.next_event)
        for event in self.games.WatchGame(watch, metadata=self.auth):
            self.next_event = event.number + 1
            view = self.view()
            if self.on_event(event, view):
                view = self.view()
            self.move(view)
            if event.kind == "game_over":
                return view
        return self.view()


def channel_for(link, server, ca):
    """The channel to the server a link names (…/games/<id>, …/tournaments/<slug>): its host and
    port, TLS for https. --server overrides the address."""
    url = urlsplit(link if "://" in link else "")
    tls = url.scheme == "https" or ca is not None
    address = server or url.netloc or "127.0.0.1:50051"
    if ":" not in address:
        address += ":443" if tls else ":80"
    if not tls:
        return grpc.insecure_channel(address)
    roots = open(ca, "rb").read() if ca else None  # None: the system's roots
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots))


def last_part(link, after):
    """The id or slug in a link (or the link itself when it is only that)."""
    return link.split(after)[-1].split("/")[0].split("#")[0].split("?")[0]


def follow_game(bot, patience):
    """Play the game to its end, following it again after an outage (for `patience` seconds)."""
    unreachable_since = None
    while True:
        try:
            view = bot.play()
            if view.over:
                scores = " ".join(f"{s.name} {s.score}" for s in view.seats)
                print(f"game over ({view.end_reason}): {scores}; winners {list(view.winners)}")
                return view
            unreachable_since = None
        except grpc.RpcError as e:
            if e.code() not in RETRY:
                raise
            unreachable_since = unreachable_since or time.monotonic()
            if time.monotonic() - unreachable_since > patience:
                raise
            print(f"{e.code().name}: following again from event {bot.next_event}", file=sys.stderr)
            time.sleep(0.5)


def play_tournament(channel, slug, token, patience):
    """Play each of the player's games as its round starts, until their rounds are all over."""
    stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
    auth = [("authorization", f"Bearer {token}")]
    played, unreachable_since, last_waiting = set(), None, None
    while True:
        try:
            t = stub.GetTournament(tournaments_pb2.GetTournamentRequest(slug=slug), metadata=auth, timeout=10).tournament
            unreachable_since = None
        except grpc.RpcError as e:
            unreachable_since = unreachable_since or time.monotonic()
            if e.code() not in RETRY or time.monotonic() - unreachable_since > patience:
                raise
            time.sleep(0.5)
            continue
        you = t.you
        if not you.division:
            print(f"refused: the token is no player's of tournament {slug}", file=sys.stderr)
            sys.exit(2)
        game = you.current_game_id
        if game and game not in played:
            print(f"round game {game}")
            follow_game(Bot(channel, game, token), patience)
            played.add(game)
            continue
        division = next(d for d in t.divisions if d.name == you.division)
        me = division.players[you.player - 1]
        if me.withdrawn or all(r.started and all(p.done for p in r.pairings) for r in division.rounds):
            place = next(s for s in division.standings if s.player == you.player)
            print(f"tournament over: {me.name} placed {place.rank} with {place.wins:g} wins, spread {place.spread:+d}")
            return
        # Say what it waits for (once each), then wait for the tournament's next event (a round
        # started, a result) and look again.
        waiting = next((r.number for r in division.rounds if not r.started), None)
        if waiting is not None and waiting != last_waiting:
            print(f"waiting for round {waiting} of division {you.division} (player {you.player}, {me.name})")
            last_waiting = waiting
        watch = tournaments_pb2.WatchTournamentRequest(slug=slug, from_event=t.events)
        try:
            for _ in stub.WatchTournament(watch, metadata=auth):
                break
        except grpc.RpcError as e:
            if e.code() not in RETRY:
                raise


def decline_reason(challenge, args, playing):
    """Why to decline a challenge (a DeclineReason and a text), or None to accept it. PUT YOUR
    POLICY HERE: this one declines clocks faster than --fastest-clock-ms, rated games
    with --casual-only, and any game beyond --max-concurrent at once."""
    clock = challenge.game.clock
    if clock.initial_ms and clock.initial_ms < args.fastest_clock_ms:
        return bots_pb2.DECLINE_REASON_TOO_FAST, f"I play {args.fastest_clock_ms // 1000} s or more"
    if challenge.rated and args.casual_only:
        return bots_pb2.DECLINE_REASON_CASUAL, "casual games only"
    if playing >= args.max_concurrent:
        return bots_pb2.DECLINE_REASON_LATER, f"{playing} games in play: later"
    return None


def play_lobby(channel, token, args):
    """A bot account's life: its stream of events open (the bot online while it is), each
    challenge accepted or declined with a reason, every game accepted (and every tournament game
    it is told of) played at once in a thread of its own, until --max-games games have ended (0: forever). A lost stream is opened again
    from the last event seen."""
    stub = bots_pb2_grpc.BotsServiceStub(channel)
    auth = [("authorization", f"Bearer {token}")]
    next_event, ended, unreachable_since = 0, 0, None
    games = {}  # game id -> the thread playing it
    while True:
        try:
            request = bots_pb2.WatchBotEventsRequest(from_event=next_event)
            for event in stub.WatchBotEvents(request, metadata=auth):
                unreachable_since = None
                next_event = event.number + 1
                kind = event.WhichOneof("kind")
                if kind == "challenged":
                    c = event.challenged
                    playing = sum(t.is_alive() for t in games.values())
                    reason = decline_reason(c, args, playing)
                    try:
                        if reason is None:
                            stub.AcceptChallenge(bots_pb2.AcceptChallengeRequest(id=c.id), metadata=auth, timeout=30)
                            print(f"accepted {c.id} from {getattr(c, 'from')}")
                        else:
                            stub.DeclineChallenge(
                                bots_pb2.DeclineChallengeRequest(id=c.id, reason=reason[0], text=reason[1]),
                                metadata=auth, timeout=10)
                            print(f"declined {c.id} from {getattr(c, 'from')}: {reason[1]}")
                    except grpc.RpcError as e:
                        # Withdrawn or expired meanwhile (FAILED_PRECONDITION): nothing to do.
                        if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                            raise
                        print(f"challenge {c.id}: {e.details()}")
                elif kind in ("game_started", "tournament_game"):
                    # A challenge's game, or a tournament's the bot is entered in by its account:
                    # each played with its own token.
                    started = getattr(event, kind)
                    game = started.game_id
                    if game not in games:
                        bot = Bot(channel, game, token)
                        games[game] = threading.Thread(target=follow_game, args=(bot, args.patience), daemon=True)
                        games[game].start()
                        where = f" ({started.tournament}, round {started.round})" if kind == "tournament_game" else ""
                        print(f"game {game}: seat {started.seat}{where}")
                elif kind == "game_ended":
                    e = event.game_ended
                    rating = f", rated {e.rating.rating:.0f}" if e.HasField("rating") else ""
                    print(f"game {e.game_id} ended: scores {list(e.scores)}, winners {list(e.winners)}{rating}")
                    ended += 1
                    if args.max_games and ended >= args.max_games:
                        for thread in games.values():
                            thread.join(timeout=args.patience)
                        return
        except grpc.RpcError as e:
            unreachable_since = unreachable_since or time.monotonic()
            if e.code() not in RETRY or time.monotonic() - unreachable_since > args.patience:
                raise
            print(f"{e.code().name}: the stream opens again from event {next_event}", file=sys.stderr)
            time.sleep(0.5)


def main():
    # A line at a time, to a terminal or a log file alike: a bot's log shows what it does as it
    # does it, not when it exits.
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", help="host:port of dawgref (default: the link's)")
    parser.add_argument("--game", help="a game link (…/games/<id>) or its id")
    parser.add_argument("--tournament", help="a tournament link (…/tournaments/<slug>) or its slug")
    parser.add_argument("--token", help="a seat's or a player's token; without one, join the game's open seat")
    parser.add_argument("--ca", help="the CA certificate (PEM) to verify the server's TLS with")
    parser.add_argument("--name", default="pybot", help="the name to join with")
    parser.add_argument("--patience", type=float, default=60, help="seconds to retry an unreachable server")
    parser.add_argument("--lobby", action="store_true", help="a bot account: stay online, answer challenges (--token: the bot's)")
    parser.add_argument("--fastest-clock-ms", type=int, default=60_000, help="lobby: decline clocks faster than this")
    parser.add_argument("--casual-only", action="store_true", help="lobby: decline rated games")
    parser.add_argument("--max-concurrent", type=int, default=4, help="lobby: games at once, more declined for later")
    parser.add_argument("--max-games", type=int, default=0, help="lobby: stop after this many games ended (0: never)")
    args = parser.parse_args()
    if sum(map(bool, (args.game, args.tournament, args.lobby))) != 1:
        parser.error("give --game, --tournament or --lobby")
    if (args.tournament or args.lobby) and not args.token:
        parser.error("--tournament needs the player's --token, --lobby the bot's")
    channel = channel_for(args.game or args.tournament or "", args.server, args.ca)
    try:
        if args.lobby:
            play_lobby(channel, args.token, args)
            return 0
        if args.tournament:
            play_tournament(channel, last_part(args.tournament, "/tournaments/"), args.token, args.patience)
            return 0
        game_id = last_part(args.game, "/games/")
        token = args.token
        if token is None:
            joined = games_pb2_grpc.GamesServiceStub(channel).JoinGame(
                games_pb2.JoinGameRequest(game_id=game_id, name=args.name), timeout=10)
            token = joined.token
            print(f"joined game {game_id} in seat {joined.seat}")
        follow_game(Bot(channel, game_id, token), args.patience)
        return 0
    except grpc.RpcError as e:
        if e.code() in RETRY:
            print(f"the server stayed unreachable: {e.details()}", file=sys.stderr)
            return 1
        print(f"refused: {e.code().name}: {e.details()}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
