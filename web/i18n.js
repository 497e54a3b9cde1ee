// The page's language: English or Russian, the visitor's choice (the switch in the header,
// remembered in localStorage) or else the browser's first language. Texts are written in
// English where they are used and looked up here; moves, scores, words and GCG stay in their
// own notation, and the server's error messages in English.

const CHOICE = "dawgref:lang";

function pick() {
  let chosen = null;
  try { chosen = localStorage.getItem(CHOICE); } catch { /* storage refused: the browser decides */ }
  if (chosen === "en" || chosen === "ru") return chosen;
  const first = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return /^ru\b/i.test(first) ? "ru" : "en";
}

export const lang = pick();

/** Choose a language for good and show the page in it. */
export function setLang(code) {
  try { localStorage.setItem(CHOICE, code); } catch { /* not remembered, still shown */ }
  location.reload();
}

const RU = {
  // the frame and the lobby
  "Lobby": "Лобби", "Director": "Судья", "Language": "Язык", "No such page.": "Такой страницы нет.",
  "Something went wrong": "Что-то пошло не так", "lobby": "лобби", "game": "партия", "director": "судья", "review": "разбор",
  "English": "Английский", "Скрэббл (Russian)": "Скрэббл (русский)",
  "Super Scrabble (English, 21×21)": "Супер-скрэббл (английский, 21×21)", "Catalan": "Каталанский", "Dutch": "Нидерландский", "French": "Французский", "German": "Немецкий",
  "Norwegian": "Норвежский", "Polish": "Польский", "Spanish": "Испанский", "Swedish": "Шведский",
  "quadruple word": "учетверение слова", "quadruple letter": "учетверение буквы", "QW": "С×4", "QL": "Б×4",
  "Single": "одинарный", "Double": "двойной", "Void": "без вызова", "5 points": "5 очков", "10 points": "10 очков", "Triple": "тройной",
  "the ruleset's own": "словарь правил", "your name": "ваше имя",
  "Computer — champion (thinks ~1 s)": "Компьютер — чемпион (думает ~1 с)", "Computer — strong": "Компьютер — сильный",
  "Computer — greedy": "Компьютер — жадный", "Computer — weak": "Компьютер — слабый", "A friend (join link)": "Друг (по ссылке)",
  "remove seat": "убрать игрока", "Seat {n}": "Игрок {n}", "+ another seat": "+ ещё игрок", "Player": "Игрок",
  "a game link or id": "ссылка на партию или её id", "Play a game": "Сыграть партию",
  "{rulesets}, English Scrabble, Скрэббл and Эрудит among them, refereed to the letter.": "{rulesets}, среди них английский Scrabble, Скрэббл и Эрудит, — судейство до буквы.",
  "New game": "Новая партия", "Ruleset": "Правила", "Lexicon": "Словарь", "Challenge rule": "Вызов",
  "Clock (minutes, 0: none)": "Часы (минуты, 0 — без часов)", "Increment (s)": "Добавка (с)", "Seat 1: you": "Игрок 1 — вы",
  "Create game": "Создать партию", "Join or watch": "Войти или смотреть",
  "Paste the link a friend sent you, or a game id to watch.": "Вставьте ссылку от друга или id партии, чтобы смотреть.",
  "Open": "Открыть",
  // word study
  "1 in {n}": "1 из {n}", "anagrams of": "анаграммы", "words like": "слова по шаблону", "hooks of": "приставки к",
  "a rack (? blank), a pattern (? * [ab]) or a word": "набор (? — пустышка), шаблон (? * [аб]) или слово",
  "longest first": "сначала длинные", "likeliest first": "сначала вероятные", "alphabetical": "по алфавиту",
  ", the first {n} shown": ", показаны первые {n}", "Word study": "Изучение слов", "shorter words too": "и слова короче",
  "Find": "Найти", "front": "спереди", "back": "сзади",
  // the game
  "type letters to place tiles at the cursor": "печатайте буквы, чтобы ставить фишки у курсора",
  "bot": "бот", "open seat": "свободное место", "computer": "компьютер", "seat {n}": "игрок {n}",
  "{letter} is not on your rack": "буквы {letter} нет в вашем наборе",
  "{letter} is not on your rack: {keys} places your {tile}": "буквы {letter} нет в вашем наборе: {keys} ставит вашу {tile}",
  "waiting for the next letter:": "ждёт следующей буквы:",
  "{letter} waits for a second letter ({tiles}); Enter or a click places {letter}.": "{letter} ждёт второй буквы ({tiles}); Enter или щелчок поставит {letter}.",
  "Which letter does the blank stand for?": "Какую букву заменяет пустышка?",
  "Watching: racks stay hidden.": "Просмотр: наборы скрыты.",
  "This browser keeps nothing: keep the seat's link to come back.": "Браузер ничего не сохраняет: сохраните ссылку на место, чтобы вернуться.",
  "This browser's token for the game is no seat's: watching.": "Токен этого браузера не подходит ни к одному месту партии: просмотр.",
  "Your seat on another device": "Ваше место на другом устройстве",
  "This link takes your seat in any browser: keep it to yourself.": "Эта ссылка открывает ваше место в любом браузере: не показывайте её другим.",
  "This browser remembers your seat: a reload or another tab comes back to it.": "Этот браузер помнит ваше место: после перезагрузки или в другой вкладке вы вернётесь к нему.",
  "Leave your seat on this browser? Only the seat's link brings you back to it.": "Покинуть место в этом браузере? Вернуться к нему можно будет только по ссылке.",
  "Leave the seat on this browser": "Покинуть место в этом браузере", "blank": "пустышка", "your rack": "ваш набор",
  "Click the tiles to exchange, then Exchange.": "Выберите фишки для обмена, затем «Обменять».",
  "A seat is open in this game.": "В этой партии есть свободное место.", "Take the seat": "Занять место",
  "pass": "пас", "exchange {tiles}": "обмен {tiles}", "{play} withdrawn": "{play} снят",
  "challenge: the play stands": "вызов: ход остаётся", "challenge: the play is off": "вызов: ход снят",
  "director: game paused": "судья: партия на паузе", "director: game resumed": "судья: партия продолжена",
  "director: score adjusted ({why})": "судья: счёт исправлен ({why})", "director: clock {delta} ({why})": "судья: часы {delta} ({why})",
  "director: the last turn was taken back": "судья: последний ход отменён", "director: {text}": "судья: {text}",
  "challenge bonus": "премия за вызов", "loses the turn": "пропускает ход", "went out: {tiles} left on another rack": "все фишки выставлены: у соперника осталось {tiles}", "{tiles} left on the rack": "на наборе осталось {tiles}",
  "overtime": "просрочка", "resigns": "сдаётся", "out of time": "время вышло", "game over: {why}": "партия окончена: {why}",
  "{who} went out": "{who}: все фишки выставлены", "{who} resigned": "{who}: партия сдана", "{who} ran out of time": "{who}: время вышло",
  "{who} lost the challenge": "{who}: вызов проигран", "{who} forfeited (director)": "{who}: техническое поражение (судья)",
  "scoreless turns": "ходы без очков", "adjudicated (director)": "результат назначен (судья)", "void (director)": "партия аннулирована (судья)",
  "Paused by the director: turns wait.": "Пауза судьи: ходы ждут.", "{rule} challenge": "вызов: {rule}", "bag": "мешок", "turn {n}": "ход {n}",
  "Game over": "Партия окончена", "Tie: ": "Ничья: ", "Winner: ": "Победитель: ",
  "Review this game: every turn analysed": "Разбор партии: каждый ход с анализом",
  "Send this link to a friend: it opens the free seat": "Отправьте ссылку другу: она открывает свободное место",
  "{who} to move.": "Ходит {who}.", "Moves": "Ходы", "Download GCG": "Скачать GCG",
  "Place tiles to see the score.": "Поставьте фишки, чтобы увидеть счёт.", "points": "очков", "bonus {n}": "премия {n}",
  "Submit": "Сходить", "Recall": "Вернуть", "→ across": "→ по горизонтали", "↓ down": "↓ по вертикали",
  "Exchange {n}": "Обменять {n}", "exchanged {n}": "обменено {n}", "Exchange…": "Обмен…", "Accept (pass)": "Принять (пас)",
  "Pass": "Пас", "passed": "пас", "Challenge": "Вызов", "The play stands.": "Ход остаётся.", "The play comes off": "Ход снят",
  "Resign": "Сдаться", "Resign this game?": "Сдать эту партию?", "resigned": "партия сдана",
  // the director
  "director token": "токен судьи", "game id or player": "id партии или игрок",
  "Enter a director token: the server's, or a director key's.": "Введите токен судьи: сервера или ключа судьи.",
  "Manage…": "Управлять…", "← previous": "← назад", "page {n}": "страница {n}", "next →": "вперёд →", "Show games": "Показать партии",
  "Tournament director": "Судья турнира", "done": "готово", "Scores": "Счёт", "paused": "на паузе", "over": "окончена",
  "reason": "причина", "{action}: sure?": "{action}: точно?", "forfeit by": "техническое поражение", "adjudicated scores": "назначенный счёт",
  "void": "аннулировать", "scores in seat order, e.g. 350 320": "счёт по порядку игроков, напр. 350 320", "a note for the record": "примечание в запись",
  "Game {id}": "Партия {id}", "Pause": "Пауза", "resumed": "продолжена", "Resume": "Продолжить", "Undo the last turn": "Отменить последний ход",
  "last turn undone": "последний ход отменён", "Score": "Счёт", "score adjusted": "счёт исправлен", "Adjust": "Изменить", "Clock (s)": "Часы (с)",
  "clock adjusted": "часы исправлены", "Result": "Результат", "End the game": "Завершить партию", "result set": "результат назначен",
  "Note": "Примечание", "note added": "примечание добавлено", "Add": "Добавить", "from the record": "из записи",
  "Every score in the record matches.": "Все очки в записи сходятся.", "1 line differs from the replay.": "1 строка расходится с повтором.",
  "{lines} differ from the replay.": "Расходятся с повтором: {lines}.", "open the game": "открыть партию", "review it": "разобрать",
  "line": "строка", "record": "запись", "recorded score / total": "очки / итог в записи", "replayed": "при повторе", "note": "примечание",
  "Not in the lexicon: {words}": "Нет в словаре: {words}", "Check a record": "Проверить запись",
  "Upload or paste a GCG file: every score is replayed and each line that differs is shown.":
    "Загрузите или вставьте файл GCG: все очки пересчитываются, расхождения показываются построчно.",
  "Replay the record": "Пересчитать запись",
  // broadcasts
  "Broadcasts": "Трансляции", "broadcasts": "трансляции", "broadcast": "трансляция", "overlay": "оверлей",
  "No broadcasts on now.": "Сейчас трансляций нет.", "{n} s behind the hall": "на {n} с позже зала", "live": "без задержки",
  "no estimate yet": "оценки пока нет", "chance to win: {a}% – {b}%": "шансы на победу: {a}% – {b}%",
  "best: {play} ({score})": "лучше: {play} ({score})", "lost {n}%": "потеряно {n}%", "phony": "несуществующее слово",
  "missed a bingo": "упущено «бинго»", "Overlay for streaming": "Оверлей для стрима", "The broadcast has ended.": "Трансляция окончена.",
  "Broadcast: ": "Трансляция: ", "Broadcast this tournament": "Транслировать турнир",
  // tournaments
  "Tournaments": "Турниры", "tournaments": "турниры", "tournament": "турнир", "No tournaments yet.": "Турниров пока нет.",
  "player or director token": "токен игрока или судьи", "Use": "Применить",
  "You are {name}, player {n} in division {division}.": "Вы — {name}, игрок {n} в группе {division}.",
  "My game": "Моя партия", "No game of yours is in play.": "Сейчас у вас нет партии.",
  "Directing this tournament.": "Вы судья этого турнира.",
  "Watching. A player's or a director's token shows more.": "Просмотр. Токен игрока или судьи покажет больше.",
  "bye": "без пары", "#": "№", "Wins": "Победы", "Losses": "Поражения", "Spread": "Разница", "Withdraw": "Снять", "withdrawn": "снят(а)",
  "{name} is withdrawn.": "{name}: снят(а) с турнира.",
  "Round {n} is paired.": "Пары тура {n} составлены.", "Pair round {n}": "Составить пары тура {n}",
  "Round {n} is paired by the standings: round {k} has results to come.": "Пары тура {n} составляются по таблице: в туре {k} ещё не все результаты.",
  "Round {n} is started.": "Тур {n} начат.", "Start round {n}": "Начать тур {n}", "Round {n}": "Тур {n}", "not started": "не начат",
  "watch": "смотреть", "Division {name}": "Группа {name}", "bye (+{n})": "без пары (+{n})", "absent ({n})": "неявка ({n})",
  "playing": "идёт", "forfeit": "техническое", "{name} forfeited": "{name}: техническое поражение", "first's score": "счёт первого", "second's score": "счёт второго",
  "Result entered: {first} {a} – {b} {second}.": "Результат внесён: {first} {a} – {b} {second}.", "Enter": "Внести",
  "{name}'s score": "{name}: очки",
  "Both scores are missing: nothing was sent.": "Не введены оба счёта: ничего не отправлено.",
  "{name}'s score is missing: nothing was sent.": "Не введён счёт игрока {name}: ничего не отправлено.",
  "{name}'s score is not a whole number: nothing was sent.": "Счёт игрока {name} — не целое число: ничего не отправлено.", "Rounds to come": "Туры впереди", "The division is over: {name} wins.": "Группа завершена: побеждает {name}.",
  "Swiss": "швейцарская", "round robin": "круговая", "King of the Hill": "«царь горы»", "factor {n}": "фактор {n}",
  "initial Fontes": "начальная Фонтеса", "random": "жребий", "by hand": "вручную", "{tournament}, round {n}": "{tournament}, тур {n}",
  "Tournaments: pairings, rounds and standings →": "Турниры: пары, туры и таблица →",
  // the plan changed after the start (plan.js)
  "Pairing method": "Жеребьёвка", "Add a round": "Добавить тур", "Round {n} is added.": "Тур {n} добавлен.",
  "Take off round {n}": "Убрать тур {n}", "Round {n} is taken off.": "Тур {n} убран.",
  "Unpair round {n}": "Отменить пары тура {n}", "Round {n}'s pairings are taken back.": "Пары тура {n} отменены.",
  "name": "имя", "Rating": "Рейтинг", "Rounds already paired": "Туры с уже составленными парами",
  "absent from rounds 1 to {n}": "не играл(а) в турах 1–{n}", "a bye in each of rounds 1 to {n}": "без пары в каждом из туров 1–{n}",
  "absent from round 1": "не играл(а) в туре 1", "a bye in round 1": "без пары в туре 1",
  "Spread of each bye": "Разница за каждый тур без пары", "Add a player": "Добавить игрока",
  "Name": "Имя", "Lifetime games": "Сыграно партий до турнира", "not known": "неизвестно",
  "Though the division has a player of that name": "Даже если в группе есть игрок с таким именем",
  "Lifetime games: a whole number, 0 or more, or empty when not known.": "Партии до турнира: целое число от 0, или пусто, если неизвестно.",
  "{name} is player {n}. Their token (shown once): {token}": "{name} — игрок {n}. Токен (показан один раз): {token}",
  "Re-enter": "Вернуть", "{name} enters again.": "{name} снова в турнире.",
  // a tournament's statistics and log
  "Statistics": "Статистика", "High game": "Лучшая партия", "High loss": "Лучшее поражение", "High combined": "Больше всего очков на двоих",
  "Biggest win": "Крупнейшая победа", "round {n}": "тур {n}", "Games": "Партии", "Average for": "В среднем набрано",
  "Average against": "В среднем пропущено", "Firsts": "Первый ход", "Performance": "Рейтинг турнира", "Bingos": "Бинго",
  "{n} in {games} games": "{n} в {games} парт.", "Download CSV": "Скачать CSV",
  "Delay (minutes)": "Задержка (минут)", "Change the delay": "Изменить задержку", "End the broadcast": "Завершить трансляцию",
  "Download the .t file": "Скачать файл .t", "Download the rated games": "Скачать рейтинговые партии", "Download the ratings": "Скачать рейтинги", "Download JSON lines": "Скачать JSON Lines",
  "Log": "Журнал", "round": "тур", "every kind": "все события", "every division": "все группы", "Show": "Показать",
  "{n} events": "Событий: {n}", "every player": "все игроки", "Division": "Группа", "Kind of event": "Событие",
  // the log's events in words (tournament_report.js)
  "tournament created": "турнир создан", "player added": "игрок добавлен", "player withdrawn": "игрок снят",
  "pairings made": "пары составлены", "round started": "тур начат", "result": "результат", "result corrected": "результат исправлен",
  "division imported": "группа импортирована", "rounds changed": "туры изменены", "player re-entered": "игрок возвращён",
  "pairings taken back": "пары отменены",
  "{name} withdraws": "{name} снимается с турнира", "{name} enters again as player {n}": "{name} снова в турнире как игрок {n}",
  "Round {n}'s pairings taken back": "Пары тура {n} отменены", "Round {n} paired": "Пары тура {n} составлены",
  "Round {n} paired by hand": "Пары тура {n} составлены вручную", "Round {n} started: {games}": "Тур {n} начат: {games}",
  "Division {division} imported: {players}, {rounds} played": "Группа {division} импортирована: {players}, сыграно: {rounds}",
  "Round {n} added": "Тур {n} добавлен", "Round {n} taken off": "Тур {n} убран", "Rounds {a} to {b} added": "Туры {a}–{b} добавлены",
  "Rounds {a} to {b} taken off": "Туры {a}–{b} убраны", "{what}: {rounds} in all": "{what}: всего {rounds}",
  "{name} joins as player {n}": "{name} вступает в турнир как игрок {n}",
  "a bye ({spread}) for round 1": "без пары ({spread}) в туре 1",
  "a bye ({spread}) for each of rounds 1 to {n}": "без пары ({spread}) в каждом из туров 1–{n}",
  "{loser} forfeits to {winner}": "{loser}: техническое поражение, побеждает {winner}", "{name}: a bye ({spread})": "{name}: без пары ({spread})",
  "{result} (withdrawn)": "{result} (снятие с турнира)", "{result} (was {old})": "{result} (было: {old})",
  // director's desk (82.8, 82.9)
  "Run a tournament": "Провести турнир",
  "A director's token makes tournaments: the server's, or a director key's for the tournament.": "Турнир создаётся с токеном судьи: сервера или ключа судьи этого турнира.",
  "Director token": "Токен судьи", "A new tournament": "Новый турнир", "Make the tournament": "Создать турнир",
  "Slug (its address)": "Адрес (slug)", "Seed": "Зерно жеребьёвки", "empty: random": "пусто — случайное",
  "Two players of a division may have one name": "Разрешить двух игроков с одним именем в группе",
  "+ a division": "+ группа", "Remove this division": "Убрать эту группу", "Rating system": "Рейтинговая система",
  "none": "нет", "NASPA club": "NASPA, клубный", "Spread cap": "Предел разницы", "A bye's spread": "Разница за тур без пары",
  "A forfeit's spread": "Разница за техническое", "Rounds": "Туры", "Factor": "Фактор", "Rounds in groups (odd)": "Туров в группах (нечётное)",
  "factor": "фактор", "Played by": "Играет", "a person": "человек", "the server's bot: weak": "бот сервера: слабый",
  "the server's bot: greedy": "бот сервера: жадный", "the server's bot: strong": "бот сервера: сильный", "the server's bot: champion": "бот сервера: чемпион",
  "Player {n}: {what}": "Игрок {n}: {what}", "rating": "рейтинг", "lifetime games": "партий до турнира", "played by": "кто играет",
  "+ a player": "+ игрок", "Or paste a list: a player a line (name, rating, lifetime games)": "Или вставьте список: по игроку в строке (имя, рейтинг, партий до турнира)",
  "Add these players": "Добавить этих игроков", "Token": "Токен", "its page": "страница турнира",
  "{name} is made: ": "Турнир «{name}» создан: ",
  "Each person's token is shown here once: it is their seat in every game of theirs. Give each player theirs.":
    "Токен каждого игрока показан здесь один раз: это его место во всех его партиях. Передайте каждому его токен.",
  "Download the tokens (CSV)": "Скачать токены (CSV)", "Nothing was sent.": "Ничего не отправлено.",
  "The tournament needs a name.": "У турнира должно быть название.",
  "The slug is 1 to 40 of a–z, 0–9, _, - and . (not only dots).": "Адрес — от 1 до 40 знаков из a–z, 0–9, _, - и . (не только точки).",
  "A director's token is needed.": "Нужен токен судьи.",
  "The seed is a whole number, 0 or more, or empty for a random one.": "Зерно — целое число от 0, или пусто для случайного.",
  "The clock is 0 to 600 minutes (0: none).": "Часы — от 0 до 600 минут (0 — без часов).",
  "The increment is 0 to 600 seconds.": "Добавка — от 0 до 600 секунд.",
  "A tournament has a division at least.": "В турнире должна быть хотя бы одна группа.",
  "Two divisions are called {name}.": "Две группы называются {name}.",
  "A division's name is 1 to 40 of a–z, 0–9, _, - and . (not only dots).": "Название группы — от 1 до 40 знаков из a–z, 0–9, _, - и . (не только точки).",
  "{where}: {min} to 100 rounds.": "{where}: от {min} до 100 туров.",
  "{where}, round {n}: the factor is a whole number, 1 to 2,500.": "{where}, тур {n}: фактор — целое число от 1 до 2500.",
  "{where}, round {n}: the rounds in groups are an odd number, 1 to 99.": "{where}, тур {n}: туров в группах — нечётное число от 1 до 99.",
  "{where}: the spread cap is a whole number, 0 or more (0 or empty: none).": "{where}: предел разницы — целое число от 0 (0 или пусто — без предела).",
  "{where}: a bye's spread is -1000 to 1000 (empty: 50).": "{where}: разница за тур без пары — от -1000 до 1000 (пусто — 50).",
  "{where}: a forfeit's spread is -1000 to 1000 (empty: 50).": "{where}: разница за техническое — от -1000 до 1000 (пусто — 50).",
  "{where}, player {n}": "{where}, игрок {n}", "{who}: the name is missing.": "{who}: не указано имя.",
  "{who}: the rating is a whole number, 0 or more (0: unrated).": "{who}: рейтинг — целое число от 0 (0 — без рейтинга).",
  "{who}: lifetime games are a whole number, 0 or more, or empty when not known.": "{who}: партий до турнира — целое число от 0, или пусто, если неизвестно.",
  "{where}: a division has 2 players at least.": "{where}: в группе должно быть не меньше 2 игроков.",
  "A division from a TSH .t file": "Группа из файла TSH .t", "Tournament": "Турнир", "The new division's name": "Название новой группы",
  "The .t file": "Файл .t", "Or paste it here": "Или вставьте его сюда", "Import the division": "Импортировать группу",
  "The rounds in the file are kept as played (paired by hand); the rounds to come are added after them.":
    "Туры из файла сохраняются как сыгранные (пары вручную); туры впереди добавляются после них.",
  "Choose the tournament the division joins.": "Выберите турнир, в который войдёт группа.",
  "The .t file is empty: choose one, or paste it.": "Файл .t пуст: выберите файл или вставьте его.",
  "The .t file is larger than 1 MiB.": "Файл .t больше 1 МиБ.",
  "Division {division} is in: {players}, {rounds} played. ": "Группа {division} добавлена: {players}, сыграно: {rounds}. ",
  "Correct": "Исправить", "Replace the result": "Заменить результат", "Replace with the forfeit": "Заменить техническим", "Cancel": "Отмена",
  "Forfeited by": "Техническое поражение:", "Enter the forfeit": "Внести техническое",
  "That is the result in already: nothing was sent.": "Этот результат уже внесён: ничего не отправлено.",
  "Choose who forfeited: nothing was sent.": "Выберите, кому засчитано техническое поражение: ничего не отправлено.",
  "Result corrected: {first} {a} – {b} {second}.": "Результат исправлен: {first} {a} – {b} {second}.",
  "Result corrected: {name} forfeits to {winner}.": "Результат исправлен: {name} — техническое поражение, побеждает {winner}.",
  "Forfeit entered: {name} forfeits to {winner}.": "Внесено техническое: {name} — поражение, побеждает {winner}.",
  "Pair round {n} by hand": "Составить пары тура {n} вручную", "Change round {n}'s pairings": "Изменить пары тура {n}",
  "Round {n}'s pairings, by hand": "Пары тура {n} вручную", "Moves first": "Ходит первым", "Second player, or a bye": "Второй игрок или «без пары»",
  "Pairing {k}: moves first": "Пара {k}: ходит первым", "Pairing {k}: second player, or a bye": "Пара {k}: второй игрок или «без пары»",
  "+ a pairing": "+ пара", "Set the pairings": "Установить пары", "Not paired yet: {names}": "Ещё без пары: {names}", "Everyone is paired.": "Пары есть у всех.",
  "Pairing {k}: choose both players, or a bye: nothing was sent.": "Пара {k}: выберите обоих игроков или «без пары»: ничего не отправлено.",
  "{name} is in two pairings: nothing was sent.": "{name} — в двух парах: ничего не отправлено.",
  "In no pairing: {names}. Nothing was sent.": "Без пары: {names}. Ничего не отправлено.",
  "Round {n} is paired by hand.": "Пары тура {n} составлены вручную.",
  // seat links (82.11)
  "Link": "Ссылка", "Copy link": "Копировать ссылку", "Copied": "Скопировано", "The link": "Ссылка",
  "QR code": "QR-код", "Hide the QR code": "Скрыть QR-код", "Drawing the QR code…": "Рисуем QR-код…",
  "QR code of the link": "QR-код ссылки", "The QR code could not be drawn: {why}": "QR-код не нарисован: {why}",
  "Copy it from the box: it is selected.": "Скопируйте её из поля: она выделена.",
  "Each player's link opens the tournament's page as theirs, in any browser: copy it and send it to them.":
    "Ссылка игрока открывает страницу турнира как его страницу в любом браузере: скопируйте её и отправьте игроку.",
  "New token": "Новый токен", "Make a new token": "Выдать новый токен", "Hide the link": "Скрыть ссылку",
  "{name}'s link, to give them:": "Ссылка для игрока {name}:",
  "{name} has a new token: the old one no longer works.": "У игрока {name} новый токен: старый больше не действует.",
  "A new token for {name}? Their old token stops working at once: their page and their game in play refuse it. Their new link is shown here, to give them.":
    "Выдать игроку {name} новый токен? Старый токен сразу перестанет действовать: его не примут ни страница игрока, ни его текущая партия. Новая ссылка для игрока появится здесь.",
  "players' reports set": "отчёты игроков настроены", "result reported": "результат сообщён игроком",
  "table reserved": "стол закреплён", "prizes set": "призы заданы", "checked in": "отметка о прибытии",
  "{here} of {all} checked in.": "На месте: {here} из {all}.", "Your check-in is taken back.": "Ваша отметка о прибытии отменена.",
  "You are checked in.": "Вы отметились: вы на месте.", "Check in when you arrive.": "Отметьтесь, когда придёте.",
  "Take back my check-in": "Отменить отметку", "I'm here": "Я на месте", "Withdrawn as absent: {n}.": "Сняты как отсутствующие: {n}.",
  "Check-in": "Отметка о прибытии", "Not here yet:": "Ещё нет:", "No one has checked in yet.": "Ещё никто не отметился.",
  "Withdraw the absent ({n})": "Снять отсутствующих ({n})", "{name} is checked in.": "{name}: на месте.",
  "{name}'s check-in is taken back.": "{name}: отметка о прибытии отменена.", "here": "на месте",
  "{name} withdraws: absent at check-in": "{name}: снят(а), не отметился(ась) о прибытии", "{name} checks in": "{name} на месте",
  "{name} is checked in by the director": "{name} на месте (отметил судья)", "{name} takes back their check-in": "{name} отменяет отметку о прибытии",
  "{name}'s check-in is taken back by the director": "{name}: отметка о прибытии отменена судьёй",
  "token made anew": "токен выдан заново", "{name}'s token made anew": "{name}: токен выдан заново",
  // the board
  "triple word": "утроение слова", "double word": "удвоение слова", "triple letter": "утроение буквы", "double letter": "удвоение буквы",
  "TW": "С×3", "DW": "С×2", "TL": "Б×3", "DL": "Б×2", "board": "поле", "board, {n} by {n}: columns A to {last}, rows 1 to {n}": "поле {n} на {n}: столбцы A–{last}, строки 1–{n}",
  "empty": "пусто", "blank as {letter}": "пустышка как {letter}", "your {letter}": "ваша {letter}", "your blank as {letter}": "ваша пустышка как {letter}", "centre": "центр",
  // the review
  "Game review": "Разбор партии", "the game": "партия", "first turn": "первый ход", "previous turn": "предыдущий ход",
  "next turn": "следующий ход", "last turn": "последний ход", "Show the best play": "Показать лучший ход",
  "Show the play made": "Показать сделанный ход", "Show the answer": "Показать ответ",
  "The game is still in play: its review opens once it is over.": "Партия ещё идёт: разбор откроется, когда она закончится.",
  "Analysed: {turns}.": "Разобрано: {turns}.", "(kept from an earlier review)": "(сохранено с прошлого разбора)",
  "Waiting for a place: {n} in line.": "Ожидание: {n}-й в очереди.", "Analysing: {done} of {total} turns, about {left} left.": "Анализ: {done} из {total} ходов, осталось около {left}.",
  "Starting the analysis…": "Анализ начинается…", "{n} s": "{n} с", "{m} min {s} s": "{m} мин {s} с",
  "best play:": "лучший ход:", "played:": "сыграно:", "the rack": "набор", "The record does not show this rack.": "В записи нет этого набора.",
  "Turn {n}: {who}": "Ход {n}: {who}", "A puzzle: one play is far ahead of every other. Find it, then show the answer.":
    "Задача: один ход намного лучше всех остальных. Найдите его, затем откройте ответ.",
  "Played": "Сыграно", "Best": "Лучший", "win": "победа", "{x} lost": "потеряно {x}", "{n} equity": "{n} эквити", "exact": "точно",
  "simulation": "симуляция", "pre-endgame": "предэндшпиль", "endgame": "эндшпиль", "static": "статическая оценка",
  "best": "лучший", "good": "хороший", "inaccuracy": "неточность", "mistake": "ошибка", "blunder": "грубая ошибка",
  "Not analysable: the record does not show the rack.": "Анализ невозможен: в записи нет набора.",
  "phony, challenged off": "несуществующее слово, снято вызовом", "phony, not challenged": "несуществующее слово, без вызова",
  "valid, challenged off": "верный ход снят вызовом", "bingo": "бинго", "bingo missed": "упущено бинго",
  "a play was better": "ход был лучше", "an exchange was better": "обмен был лучше", "puzzle": "задача",
  "Win probability": "Вероятность победы", "Win probabilities are for two players: this game is judged by equity.":
    "Вероятность победы считается для двух игроков: эта партия оценена по эквити.",
  "each seat's win probability, turn by turn": "вероятность победы каждого игрока по ходам",
  "no rack": "нет набора", "Turns": "Ходы", "player": "игрок", "rack": "набор", "played": "сыграно", "win lost": "потеря", "equity lost": "потеря эквити",
  "class": "оценка", "Summary": "Итог", "accuracy": "точность", "turns": "ходов", "bingos": "бинго", "missed": "упущено", "phonies": "ошибочные слова",
  "Accuracy is 100 · e^(−mean loss ÷ 10), the loss in points of win probability a turn: best play every turn is 100.":
    "Точность = 100 · e^(−средняя потеря ÷ 10), потеря — в процентных пунктах вероятности победы за ход: лучший ход каждый раз даёт 100.",
  "Puzzles from this game": "Задачи из этой партии",
  "small mistake": "небольшая ошибка", "medium mistake": "средняя ошибка", "large mistake": "крупная ошибка",
  "small": "небольшая", "medium": "средняя", "large": "крупная", "mistake size": "размер ошибки",
  "mistake index": "индекс ошибок", "let go": "пропущено",
  "A mistake is small from 0.5 points of win probability lost, medium from 3, large from 7 (an endgame's from 1, 7 and 15 points of spread, and large whenever it lets a won game go); the mistake index counts each 0.2, 0.5 and 1. “Let go”: the opponent's phonies left unchallenged.":
    "Ошибка небольшая от 0,5 пункта потерянной вероятности победы, средняя от 3, крупная от 7 (в эндшпиле — от 1, 7 и 15 очков разницы и всегда крупная, если упускает выигранную партию); индекс ошибок считает каждую за 0,2, 0,5 и 1. «Пропущено»: несуществующие слова соперника, оставленные без вызова.",
  // player and streamer (82.15-17)
  "play": "играть",
  "Click a square and type letters (arrows move, Space turns, Backspace takes back, Enter submits), drag tiles, or click a tile then a square. A letter you lack uses a blank.":
    "Щёлкните клетку и печатайте буквы (стрелки двигают, пробел поворачивает, Backspace возвращает, Enter отправляет), перетаскивайте фишки или щёлкните фишку, затем клетку. Недостающую букву заменит пустышка.",
  "Tap a tile, then a square: it goes there. Tap a placed tile on the rack to take it back.":
    "Коснитесь фишки, затем клетки — фишка встанет туда. Коснитесь поставленной фишки в наборе, чтобы вернуть её.",
  "Tap the tiles to exchange, then Exchange.": "Коснитесь фишек для обмена, затем «Обменять».",
  "Not shown yet": "Ещё не показана",
  "The board appears here as soon as the broadcast shows this game: the overlay asks every few seconds.":
    "Доска появится здесь, как только трансляция покажет эту партию: оверлей проверяет каждые несколько секунд.",
  "This address names no game.": "Этот адрес не указывает ни на одну партию.",
  "The server does not answer: the overlay asks again every few seconds.": "Сервер не отвечает: оверлей повторяет запрос каждые несколько секунд.",
  // broadcast results (82.18-20)
  "result entered by hand: {result}": "результат внесён вручную: {result}",
  "{name} won, {a} – {b}": "{name} побеждает, {a} – {b}", "tie, {a} – {b}": "ничья, {a} – {b}", "game void": "партия аннулирована",
  // players' reports, tables and prizes
  "Players report their results here: a result is entered when both players' reports agree.":
    "Игроки сами сообщают свои результаты: результат вносится, когда сообщения обоих игроков совпадают.",
  "Players report their results here: one player's report enters the result.":
    "Игроки сами сообщают свои результаты: результат вносится по сообщению одного игрока.",
  "Players report results:": "Игроки сообщают результаты:", "off": "нет", "both must agree": "оба должны совпасть",
  "one report suffices": "достаточно одного сообщения", "Division {name}: players report results: {mode}.": "Группа {name}: игроки сообщают результаты — {mode}.",
  "{name} reported {a}–{b}": "{name} сообщает {a}–{b}", "disputed": "расхождение",
  "Your score": "Ваш счёт", "Opponent's score": "Счёт соперника", "Win / Loss / Tie": "Победа / поражение / ничья",
  "Win": "Победа", "Loss": "Поражение", "Tie": "Ничья", "Report": "Сообщить", "a win": "победа", "a loss": "поражение", "a tie": "ничья",
  "{what} is not a whole number: nothing was sent.": "{what} — не целое число: ничего не отправлено.",
  "{what} is missing: nothing was sent.": "{what} не указан: ничего не отправлено.",
  "Choose a win, a loss or a tie: nothing was sent.": "Выберите победу, поражение или ничью: ничего не отправлено.",
  "Your reports differ: the director will settle it. You may report again.": "Ваши сообщения расходятся: решит судья. Можно сообщить ещё раз.",
  "Reported: waiting for {name}'s report.": "Сообщено: ждём сообщения игрока {name}.",
  "Result entered: {first} {a} – {second} {b}.": "Результат внесён: {first} {a} – {second} {b}.",
  "Your result of round {n}, against {name}:": "Ваш результат в туре {n}, против игрока {name}:",
  "Your report: {a}–{b}, {outcome}. You may change it until the result is in.": "Ваше сообщение: {a}–{b}, {outcome}. Его можно изменить, пока результат не внесён.",
  "Table {n}": "Стол {n}", "Round {n}: table {table}, against {name}.": "Тур {n}: стол {table}, соперник — {name}.",
  "Prizes": "Призы", "Prizes (provisional)": "Призы (предварительно)", "Prize": "Приз", "Value": "Что", "Taken by": "Кому",
  "Achievement": "За что", "shared": "делят", "nobody:": "никому:", "Download the prizes (CSV)": "Скачать призы (CSV)",
  "{ordinal} place": "{n}-е место", "{class}: {ordinal} place": "{class}: {n}-е место", "Most bingos": "Больше всех бинго",
  "round {n}: {a}-{b} v {name}": "тур {n}: {a}-{b} против {name}", "{n} bingos": "бинго: {n}",
  "no player it is open to has a game with scores": "ни у кого из претендентов нет партии со счётом",
  "no game with scores has been lost": "ни одна партия со счётом ещё не проиграна", "no player has a bingo": "ни у кого нет бинго",
  "no player is placed {ordinal} or below": "нет игрока на {n}-м месте или ниже",
  "everyone in line for it has taken a prize of exclusive group {group}": "все претенденты уже получили приз из группы {group}",
  "bingo counts are not known (the games were not played on the server)": "число бинго неизвестно (партии играли не на сервере)",
  // the hall display
  "Hall display": "Экран для зала", "Pairings by name": "Пары по алфавиту", "Standings": "Положение",
  "Table": "Стол", "Opponent": "Соперник", "Plays": "Ход", "first": "первый", "second": "второй",
  "absent": "неявка", "not paired": "не в паре", "won by forfeit": "тех. победа", "lost by forfeit": "тех. поражение",
  "Won–lost": "Поб.–пор.", "page {n} of {m}": "страница {n} из {m}", "No players yet.": "Игроков пока нет.",
  "This tournament has no division {name}.": "В этом турнире нет группы {name}.",
  // print page
  "Scorecards and pairing sheets": "Карточки игроков и листы пар", "Scorecard": "Карточка игрока",
  "Paper": "Бумага", "Print": "Печать", "Scorecards": "Карточки", "Pairing sheets": "Листы пар",
  "Scorecards and sheets": "Карточки и листы", "Rating {n}": "Рейтинг {n}", "Round": "Тур",
  "My score": "Мои очки", "Total spread": "Общая разница",
  "Nothing to print: no round is paired yet.": "Печатать нечего: ни один тур ещё не разбит на пары.",
  "What to print": "Что печатать",
  // hall prizes (hall.js: its other words are the prizes' and the hall's above), and a player's reserved table (plan.js)
  "Reserve table": "Закрепить стол", "Reserved table of {name}": "Закреплённый стол игрока {name}",
  "{name} keeps table {n}.": "За игроком {name} закреплён стол {n}.", "{name} has no reserved table.": "У игрока {name} нет закреплённого стола.",
};

// Counted nouns: English one/many; Russian one/few/many.
const NOUNS = {
  word: [["word", "words"], ["слово", "слова", "слов"]],
  point: [["point", "points"], ["очко", "очка", "очков"]],
  tile: [["tile", "tiles"], ["фишка", "фишки", "фишек"]],
  turn: [["turn", "turns"], ["ход", "хода", "ходов"]],
  line: [["line", "lines"], ["строка", "строки", "строк"]],
  ruleset: [["ruleset", "rulesets"], ["набор правил", "набора правил", "наборов правил"]],
  "live game": [["live game", "live games"], ["партия идёт", "партии идут", "партий идёт"]],
  game: [["game", "games"], ["партия", "партии", "партий"]],
  player: [["player", "players"], ["игрок", "игрока", "игроков"]],
  round: [["round", "rounds"], ["тур", "тура", "туров"]],
};

/** `text` in the page's language, `{name}`s filled from `vars`. */
export function t(text, vars) {
  const s = (lang === "ru" && RU[text]) || text;
  return vars ? s.replace(/\{(\w+)\}/g, (all, k) => (vars[k] === undefined ? all : String(vars[k]))) : s;
}

/** "3 words", "3 слова": a number and its noun, agreed. */
export function count(n, noun) {
  const [en, ru] = NOUNS[noun] || [[noun, noun], [noun, noun, noun]];
  const shown = Number(n).toLocaleString(lang);
  if (lang !== "ru") return `${shown} ${n === 1 ? en[0] : en[1]}`;
  const m10 = Math.abs(n) % 10, m100 = Math.abs(n) % 100;
  const form = m10 === 1 && m100 !== 11 ? ru[0] : m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14) ? ru[1] : ru[2];
  return `${shown} ${form}`;
}
