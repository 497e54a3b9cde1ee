/* MAGPIE's timed player answering one position at a time, for `dawgref-lab vs-magpie h2h`.
 *
 * Written for dawgref (MIT), not taken from MAGPIE: it calls MAGPIE's own player, the
 * PlayChooser (src/impl/play_chooser.h, play_chooser_choose_move), which MAGPIE's REPL reaches
 * only through `autoplay -pc1/-pc2`, where both seats are MAGPIE's. It is built against
 * MAGPIE's objects by vs-magpie/run.sh and never linked into dawgref.
 *
 * The player is the one autoplay gives a clocked seat: simulation of the top 15 static plays,
 * 2 plies, with the pre-endgame solver at 1 to 4 tiles in the bag and the endgame solver once
 * it is empty; here with a flat budget of SECONDS a move instead of a share of a game clock,
 * and one thread. One chooser serves every position, so its endgame table (a fifth of the
 * memory, MAGPIE's setting) is made once, at the first endgame, not once a game.
 *
 * Usage, from MAGPIE's directory (its data in ./data):  h2h-player LEXICON SECONDS SEED
 * It prints `h2h-ready` once the data is loaded, then reads lines `cgp BOARD RACKS SCORES
 * ZEROS` (the side to move first) and answers each with one line:
 *   h2h-move MILLISECONDS MOVE        MOVE as GCG: `8H WO.D +23`, `-ABC +0`, `- +0`
 *   h2h-error MESSAGE                 the position was refused
 * MILLISECONDS is the chooser's own time on the move, the position's loading left out. Any
 * other line on standard output is MAGPIE's logging. */

#include "ent/game.h"
#include "ent/move.h"
#include "ent/win_pct.h"
#include "impl/config.h"
#include "impl/exec.h"
#include "impl/play_chooser.h"
#include "str/move_string.h"
#include "util/io_util.h"
#include "util/string_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The error stack's text on one line after `h2h-error`; false when there was none. */
static bool answer_error(ErrorStack *errors) {
  if (error_stack_is_empty(errors)) {
    return false;
  }
  char *text = error_stack_get_string_and_reset(errors);
  for (char *c = text; *c; c++) {
    if (*c == '\n' || *c == '\r') {
      *c = ' ';
    }
  }
  printf("h2h-error %s\n", text);
  fflush(stdout);
  free(text);
  return true;
}

/* Run a command of MAGPIE's REPL, its output dropped. */
static void run(Config *config, ErrorStack *errors, const char *command) {
  char *output = NULL;
  run_str_api_command(config, errors, command, &output);
  free(output);
}

int main(int argc, char *argv[]) {
  if (argc != 4) {
    fprintf(stderr, "usage: h2h-player LEXICON SECONDS SEED\n");
    return 2;
  }
  const double seconds = strtod(argv[2], NULL);
  if (!(seconds > 0.0)) {
    fprintf(stderr, "h2h-player: SECONDS must be more than 0, not %s\n", argv[2]);
    return 2;
  }
  ErrorStack *errors = error_stack_create();
  const ConfigArgs config_args = {.data_paths = "data", .use_wmp = true};
  Config *config = config_create(&config_args, errors);
  char set_lexicon[256];
  snprintf(set_lexicon, sizeof set_lexicon, "set -lex %s -threads 1 -savesettings false",
           argv[1]);
  if (error_stack_is_empty(errors)) {
    run(config, errors, set_lexicon);
  }
  WinPct *win_pcts = NULL;
  if (error_stack_is_empty(errors)) {
    win_pcts = win_pct_create("data", "winpct", errors);
  }
  if (!error_stack_is_empty(errors)) {
    error_stack_print_and_reset(errors);
    return 1;
  }
  /* Zero plies and candidates: the chooser's defaults, 2 and 15. */
  const PlayChooserStrategy strategy = {
      .pre_endgame_eval = PLAY_CHOOSER_EVAL_PEG,
      .endgame_eval = PLAY_CHOOSER_EVAL_ENDGAME,
      .fixed_seconds_per_move = seconds,
      .win_pcts = win_pcts,
      .num_threads = 1,
      .seed = strtoull(argv[3], NULL, 10),
  };
  PlayChooser *chooser = play_chooser_create(&strategy);
  printf("h2h-ready\n");
  fflush(stdout);

  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  StringBuilder *move_text = string_builder_create();
  while ((length = getline(&line, &capacity, stdin)) > 0) {
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
      line[--length] = '\0';
    }
    if (strncmp(line, "cgp ", 4) != 0) {
      printf("h2h-error expected `cgp BOARD RACKS SCORES ZEROS`\n");
      fflush(stdout);
      continue;
    }
    run(config, errors, line);
    if (answer_error(errors)) {
      continue;
    }
    Game *game = config_get_game(config);
    Move move;
    const double started = now_ms();
    play_chooser_choose_move(chooser, game, &move, errors);
    const double took = now_ms() - started;
    if (answer_error(errors)) {
      continue;
    }
    string_builder_clear(move_text);
    string_builder_add_gcg_move(move_text, &move, game_get_ld(game));
    printf("h2h-move %.1f %s\n", took, string_builder_peek(move_text));
    fflush(stdout);
  }
  free(line);
  string_builder_destroy(move_text);
  play_chooser_destroy(chooser);
  win_pct_destroy(win_pcts);
  config_destroy(config);
  error_stack_destroy(errors);
  return 0;
}
