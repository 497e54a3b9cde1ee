"""A dawgref bot to copy: takes a seat, follows the game, plays, challenges, and ends cleanly.

    ./setup                     # once: .venv with grpcio, and the stubs in gen/
    .venv/bin/python bot.py --game http://127.0.0.1:50051/games/<id>    # joins the open seat
    .venv/bin/python bot.py --game <id> --token <seat token>           # or plays a seat it has

Exit status: 0 when the game is over, 1 when the server stays unreachable, 2 on a refusal.
"""

import argparse
import os
import sys
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))
from dawgref.v1 import analysis_pb2, common_pb2, games_pb2, lexicons_pb2  # noqa: E402
from dawgref.v1 import analysis_pb2_grpc, games_pb2_grpc, lexicons_pb2_grpc  # noqa: E402

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port of dawgref")
    parser.add_argument("--game", required=True, help="a game link (…/games/<id>) or its id")
    parser.add_argument("--token", help="a seat's token; without one, join the game's open seat")
    parser.add_argument("--name", default="pybot", help="the name to join with")
    parser.add_argument("--patience", type=float, default=60, help="seconds to retry an unreachable server")
    args = parser.parse_args()
    game_id = args.game.split("/games/")[-1].split("/")[0].split("#")[0].split("?")[0]
    channel = grpc.insecure_channel(args.server)
    token = args.token
    if token is None:
        joined = games_pb2_grpc.GamesServiceStub(channel).JoinGame(
            games_pb2.JoinGameRequest(game_id=game_id, name=args.name), timeout=10)
        token = joined.token
        print(f"joined game {game_id} in seat {joined.seat}")
    bot = Bot(channel, game_id, token)
    unreachable_since = None
    while True:
        try:
            view = bot.play()
            if view.over:
                scores = " ".join(f"{s.name} {s.score}" for s in view.seats)
                print(f"game over ({view.end_reason}): {scores}; winners {list(view.winners)}")
                return 0
            unreachable_since = None
        except grpc.RpcError as e:
            if e.code() not in RETRY:
                print(f"refused: {e.code().name}: {e.details()}", file=sys.stderr)
                return 2
            unreachable_since = unreachable_since or time.monotonic()
            if time.monotonic() - unreachable_since > args.patience:
                print(f"the server stayed unreachable: {e.details()}", file=sys.stderr)
                return 1
            print(f"{e.code().name}: following again from event {bot.next_event}", file=sys.stderr)
            time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
