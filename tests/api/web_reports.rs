//! Players' own results, tables and prizes in the browser: a player reports their pairing's
//! result from their tournament page (ReportResult), the answer said in words (waiting, entered,
//! disputed, or the server's refusal); nobody else but the director sees a report before it is
//! the result; the director sees a pairing's reports (two that differ marked disputed) beside the
//! result form that settles them, and chooses the division's way with reports; each pairing's
//! table is shown; a division's prizes are shown under its standings (provisional until every
//! result is in) and downloaded as CSV.
//!
//! Each test drives the pages in headless Chromium at a laptop's screen (1366×768, in English)
//! and a phone's (390×844, in Russian), and checks what the page did through the API with exact
//! values. Screenshots go to `target/screenshots/reports-*.png`.

use crate::common;

use crate::browser::*;
use common::server::*;
use dawgref::proto::v1 as pb;
use fantoccini::Client;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

/// Set the page's boxes and selects by id as typing or choosing would (`input` and `change`
/// fired), in one go. Every id must name an element.
async fn fill(c: &Client, values: &[(&str, &str)]) {
    let js = format!(
        "const missing = [];
         for (const [id, v] of {}) {{
           const el = document.getElementById(id);
           if (!el) {{ missing.push(id); continue; }}
           el.value = v;
           el.dispatchEvent(new Event('input', {{ bubbles: true }}));
           el.dispatchEvent(new Event('change', {{ bubbles: true }}));
         }}
         return missing;",
        serde_json::to_string(values).unwrap()
    );
    assert_eq!(script(c, &js).await, serde_json::json!([]), "boxes to fill");
}

/// The value of the box or select `id`.
async fn value(c: &Client, id: &str) -> String {
    let js = format!("const el = document.getElementById({id:?}); return el ? el.value : null;");
    script(c, &js).await.as_str().map(str::to_string).unwrap_or_else(|| panic!("no #{id}"))
}

/// The texts of the labels tied to the element `id`.
async fn labels(c: &Client, id: &str) -> String {
    let js = format!(
        "return [...document.getElementById({id:?}).labels].map((l) => l.textContent.trim()).join('|')"
    );
    script(c, &js).await.as_str().unwrap().to_string()
}

/// The texts of the elements `css` matches, in order.
async fn texts(c: &Client, css: &str) -> Vec<String> {
    let js = format!("return [...document.querySelectorAll({css:?})].map((el) => el.textContent.trim())");
    serde_json::from_value(script(c, &js).await).unwrap()
}

/// Whether the page scrolls sideways (it must not, on a phone too).
async fn sideways(c: &Client) -> bool {
    script(c, "const page = document.documentElement; return page.scrollWidth > page.clientWidth").await
        == serde_json::json!(true)
}

/// Scroll the element `css` matches to the middle of the screen (for a screenshot of it).
async fn show(c: &Client, css: &str) {
    script(c, &format!("document.querySelector({css:?}).scrollIntoView({{ block: 'center' }})")).await;
}

/// Catch the files the page offers for download (`window.saved`: [name, text] pairs).
async fn catch_downloads(c: &Client) {
    script(
        c,
        "window.saved = [];
         const blobs = new Map();
         const made = URL.createObjectURL;
         URL.createObjectURL = (blob) => { const url = made(blob); blobs.set(url, blob); return url; };
         HTMLAnchorElement.prototype.click = function () {
           const name = this.download;
           blobs.get(this.href).text().then((text) => window.saved.push([name, text]));
         };",
    )
    .await;
}

/// Tournament `slug` as its director sees it.
async fn get(t: &mut Tournaments, slug: &str) -> pb::Tournament {
    let r = t.get_tournament(authed(pb::GetTournamentRequest { slug: slug.into() }, ROOT)).await.unwrap();
    r.into_inner().tournament.unwrap()
}

/// Round 1's pairing `n` as the director sees it.
async fn pairing(t: &mut Tournaments, slug: &str, n: usize) -> pb::TournamentPairing {
    get(t, slug).await.divisions[0].rounds[0].pairings[n - 1].clone()
}

/// The reports a pairing shows: (player, scores).
fn reports_of(p: &pb::TournamentPairing) -> Vec<(u32, Vec<i32>)> {
    p.reports.iter().map(|r| (r.player, r.scores.clone())).collect()
}

/// The log's events of `kinds`, as (kind, by).
async fn logged(t: &mut Tournaments, slug: &str, kinds: &[&str]) -> Vec<(String, String)> {
    let filter = pb::TournamentLogFilter {
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        ..Default::default()
    };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    let r = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner();
    r.events.into_iter().map(|e| (e.kind, e.by)).collect()
}

fn line(first: u32, second: u32) -> pb::PairingSpec {
    pb::PairingSpec { first, second }
}

async fn pair_by_hand(t: &mut Tournaments, slug: &str, lines: Vec<pb::PairingSpec>) {
    let request = pb::SetPairingsRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairings: lines,
        request_id: String::new(),
    };
    t.set_pairings(authed(request, ROOT)).await.unwrap();
}

/// A result of round 1 entered through the API by the director.
async fn result(t: &mut Tournaments, slug: &str, pairing: u32, first: i32, second: i32) {
    let request = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
        ..Default::default()
    };
    t.record_result(authed(request, ROOT)).await.unwrap();
}

/// As tests/api/server_result_reports.rs's: Ann, Bo, Cy, Di, Robo (players 1 to 5), two manual
/// rounds, round 1 paired by hand (Ann–Bo, Cy–Di, Robo's bye), the players reporting with both
/// reports to agree. The players' tokens.
async fn event(srv: &TestServer, slug: &str) -> (Tournaments, Vec<String>) {
    let names = ["Ann", "Bo", "Cy", "Di", "Robo"];
    let (mut t, tokens) =
        tournament(srv, ROOT, (slug, slug), &names, &[pb::PairingMethod::Manual; 2], 5).await;
    pair_by_hand(&mut t, slug, vec![line(1, 2), line(3, 4), line(5, 0)]).await;
    let request = pb::SetResultReportsRequest {
        slug: slug.into(),
        division: "a".into(),
        result_reports: pb::ResultReports::BothAgree as i32,
        request_id: String::new(),
    };
    t.set_result_reports(authed(request, ROOT)).await.unwrap();
    (t, tokens.into_iter().map(|x| x.token).collect())
}

/// The tables round 1's rows show, in order, and the ones the API says (a bye: none).
async fn tables_match(c: &Client, t: &mut Tournaments, slug: &str, lang: &str) {
    let want: Vec<String> = get(t, slug).await.divisions[0].rounds[0]
        .pairings
        .iter()
        .map(|p| {
            if p.second == 0 {
                String::new()
            } else {
                format!("{} {}", say(lang, "Table", "Стол"), p.table)
            }
        })
        .collect();
    assert!(want.iter().filter(|x| !x.is_empty()).count() > 0);
    let shown = wait_until(
        "round 1's tables",
        || async { Some(texts(c, "#round-a-1 tr[data-pairing] td.table-no").await) },
        |v| v.len() == want.len(),
    )
    .await;
    assert_eq!(shown, want, "{lang}: the tables shown are the API's");
}

/// A player reports their own result from their page: refused on the page with a box empty; a
/// tie claimed as a win refused by the server in its words, nothing reported; a report (double
/// clicked: once) waits for the opponent, who sees nothing of it, and is filled in again on the
/// reporter's page; the opponent's report that agrees enters the result. Two reports that differ
/// are shown to the director, marked disputed, and the director's result settles them; the
/// director's choice of the division's way with reports changes it; no one else has a form.
#[tokio::test]
async fn players_report_their_results_and_the_director_settles_a_dispute() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("reports-{lang}");
        let (mut t, tokens) = event(&srv, &slug).await;
        let ann =
            open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={}", tokens[0]))
                .await;
        wait_until("Ann's form", || async { Some(count(&ann, "#report-go-a-1").await) }, |&n| n == 1).await;
        tables_match(&ann, &mut t, &slug, lang).await;
        assert_eq!(
            text(&ann, "#my-table").await.unwrap(),
            say(lang, "Round 1: table 1, against Bo.", "Тур 1: стол 1, соперник — Bo.")
        );
        assert_eq!(
            text(&ann, "#reports-note-a").await.unwrap(),
            say(
                lang,
                "Players report their results here: a result is entered when both players' reports agree.",
                "Игроки сами сообщают свои результаты: результат вносится, когда сообщения обоих игроков совпадают."
            )
        );
        // Her own pairing only; no director's controls; no prizes set.
        assert_eq!(count(&ann, ".report-form").await, 1, "{lang}");
        assert_eq!(count(&ann, "#round-a-1 tr.report-row[data-report='1'] .report-form").await, 1);
        assert_eq!(count(&ann, "#reports-mode-a").await, 0);
        assert_eq!(count(&ann, "#prizes-title-a").await, 0);
        for (id, label) in [
            ("report-mine-a-1", say(lang, "Your score", "Ваш счёт")),
            ("report-theirs-a-1", say(lang, "Opponent's score", "Счёт соперника")),
            ("report-outcome-a-1", say(lang, "Win / Loss / Tie", "Победа / поражение / ничья")),
        ] {
            assert_eq!(labels(&ann, id).await, label, "{lang}: #{id}");
        }
        assert_eq!(text(&ann, "#report-go-a-1").await.unwrap(), say(lang, "Report", "Сообщить"));
        // An empty box: refused on the page, nothing sent.
        fill(&ann, &[("report-mine-a-1", "402")]).await;
        click(&ann, "#report-go-a-1").await;
        wait_text(
            &ann,
            "#report-said-a-1",
            say(
                lang,
                "Opponent's score is missing: nothing was sent.",
                "Счёт соперника не указан: ничего не отправлено.",
            ),
        )
        .await;
        // A tie claimed as a win: the server's refusal, in its words; nothing reported.
        fill(&ann, &[("report-mine-a-1", "380"), ("report-theirs-a-1", "380")]).await;
        assert_eq!(value(&ann, "report-outcome-a-1").await, "REPORTED_OUTCOME_TIE", "chosen from the scores");
        fill(&ann, &[("report-outcome-a-1", "REPORTED_OUTCOME_WIN")]).await;
        click(&ann, "#report-go-a-1").await;
        wait_text(
            &ann,
            "#report-said-a-1",
            "INVALID_ARGUMENT: outcome: 380–380 is a tie for you, reported as a win",
        )
        .await;
        show(&ann, "#report-a-1").await;
        screenshot(&ann, &format!("reports-refused-{lang}")).await;
        assert_eq!(reports_of(&pairing(&mut t, &slug, 1).await), []);
        assert_eq!(logged(&mut t, &slug, &["result_reported", "result"]).await, []);
        // 402–371, a win (the win chosen by hand stands as the scores change).
        fill(&ann, &[("report-mine-a-1", "402"), ("report-theirs-a-1", "371")]).await;
        assert_eq!(value(&ann, "report-outcome-a-1").await, "REPORTED_OUTCOME_WIN");
        script(&ann, "const go = document.getElementById('report-go-a-1'); go.click(); go.click();").await;
        wait_text(
            &ann,
            "#report-said-a-1",
            say(lang, "Reported: waiting for Bo's report.", "Сообщено: ждём сообщения игрока Bo."),
        )
        .await;
        // The API: exactly that report, once.
        assert_eq!(reports_of(&pairing(&mut t, &slug, 1).await), [(1, vec![402, 371])]);
        assert_eq!(
            logged(&mut t, &slug, &["result_reported"]).await.len(),
            1,
            "{lang}: a double click reports once"
        );
        // Her page drawn again shows her report, its boxes filled.
        wait_text(
            &ann,
            "#report-own-a-1",
            say(
                lang,
                "Your report: 402–371, a win. You may change it until the result is in.",
                "Ваше сообщение: 402–371, победа. Его можно изменить, пока результат не внесён.",
            ),
        )
        .await;
        assert_eq!(
            [value(&ann, "report-mine-a-1").await, value(&ann, "report-theirs-a-1").await],
            ["402", "371"]
        );
        assert!(!sideways(&ann).await, "{lang}: Ann's page scrolls sideways");
        show(&ann, "#report-a-1").await;
        screenshot(&ann, &format!("reports-waiting-{lang}")).await;

        // Bo's page: nothing of Ann's report.
        let bo = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={}", tokens[1]))
            .await;
        wait_until("Bo's form", || async { Some(count(&bo, "#report-go-a-1").await) }, |&n| n == 1).await;
        assert_eq!(count(&bo, "#report-own-a-1").await, 0);
        assert_eq!([value(&bo, "report-mine-a-1").await, value(&bo, "report-theirs-a-1").await], ["", ""]);
        assert!(!text(&bo, "#division-a").await.unwrap().contains("402"), "{lang}: Bo sees no report");
        assert_eq!(
            text(&bo, "#my-table").await.unwrap(),
            say(lang, "Round 1: table 1, against Ann.", "Тур 1: стол 1, соперник — Ann.")
        );
        // Bo's report agrees: the result is in.
        fill(&bo, &[("report-mine-a-1", "371"), ("report-theirs-a-1", "402")]).await;
        assert_eq!(value(&bo, "report-outcome-a-1").await, "REPORTED_OUTCOME_LOSS");
        click(&bo, "#report-go-a-1").await;
        wait_text(
            &bo,
            "#report-said-a-1",
            say(lang, "Result entered: Ann 402 – Bo 371.", "Результат внесён: Ann 402 – Bo 371."),
        )
        .await;
        wait_text(&bo, "#round-a-1 tr[data-pairing='1'] td.score", "402 – 371").await;
        assert_eq!(count(&bo, ".report-form").await, 0);
        let p = pairing(&mut t, &slug, 1).await;
        assert_eq!((p.done, p.scores.clone(), reports_of(&p)), (true, vec![402, 371], vec![]));
        let d = get(&mut t, &slug).await.divisions.remove(0);
        let st: Vec<_> = d.standings.iter().map(|s| (s.player, s.wins, s.losses, s.spread)).collect();
        assert_eq!(&st[..2], [(5, 1.0, 0, 50), (1, 1.0, 0, 31)], "{lang}");
        assert_eq!(
            logged(&mut t, &slug, &["result"]).await,
            [("result".to_string(), "player 2 of a".to_string())]
        );
        assert!(!sideways(&bo).await, "{lang}: Bo's page scrolls sideways");
        show(&bo, "#round-a-1").await;
        screenshot(&bo, &format!("reports-entered-{lang}")).await;
        bo.close().await.unwrap();
        // Ann's page follows: the result, no form.
        wait_text(&ann, "#round-a-1 tr[data-pairing='1'] td.score", "402 – 371").await;
        wait_until("Ann's form gone", || async { Some(count(&ann, ".report-form").await) }, |&n| n == 0)
            .await;
        ann.close().await.unwrap();

        // Cy and Di disagree (Cy through the API, Di on her page).
        let cy = pb::ReportResultRequest {
            slug: slug.clone(),
            round: 1,
            pairing: 0,
            my_score: 420,
            opponent_score: 380,
            outcome: pb::ReportedOutcome::Win as i32,
            request_id: String::new(),
        };
        t.report_result(authed(cy, &tokens[2])).await.unwrap();
        let di = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={}", tokens[3]))
            .await;
        wait_until("Di's form", || async { Some(count(&di, "#report-go-a-1").await) }, |&n| n == 1).await;
        fill(&di, &[("report-mine-a-1", "390"), ("report-theirs-a-1", "420")]).await;
        click(&di, "#report-go-a-1").await;
        wait_text(
            &di,
            "#report-said-a-1",
            say(
                lang,
                "Your reports differ: the director will settle it. You may report again.",
                "Ваши сообщения расходятся: решит судья. Можно сообщить ещё раз.",
            ),
        )
        .await;
        show(&di, "#report-a-1").await;
        screenshot(&di, &format!("reports-disputed-player-{lang}")).await;
        di.close().await.unwrap();
        assert_eq!(reports_of(&pairing(&mut t, &slug, 2).await), [(3, vec![420, 380]), (4, vec![420, 390])]);

        // The director's page: both reports, disputed, beside the result form; the way chosen.
        let dir = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}#token={ROOT}")).await;
        wait_until(
            "the reports",
            || async { Some(count(&dir, "#reports-a-1-2 .report").await) },
            |&n| n == 2,
        )
        .await;
        assert_eq!(
            texts(&dir, "#reports-a-1-2 .report").await,
            [
                say(lang, "Cy reported 420–380", "Cy сообщает 420–380"),
                say(lang, "Di reported 420–390", "Di сообщает 420–390")
            ]
        );
        assert_eq!(
            texts(&dir, "#reports-a-1-2 .disputed-mark").await,
            [say(lang, "disputed", "расхождение")]
        );
        assert_eq!(count(&dir, "#round-a-1 tr[data-pairing='2'] .result-form").await, 1);
        assert_eq!(count(&dir, ".report-form").await, 0, "the director reports nothing");
        assert_eq!(count(&dir, "#reports-note-a").await, 0);
        assert_eq!(value(&dir, "reports-mode-a").await, "RESULT_REPORTS_BOTH_AGREE");
        assert_eq!(
            labels(&dir, "reports-mode-a").await,
            say(lang, "Players report results:", "Игроки сообщают результаты:")
        );
        tables_match(&dir, &mut t, &slug, lang).await;
        assert!(!sideways(&dir).await, "{lang}: the director's page scrolls sideways");
        show(&dir, "#reports-a-1-2").await;
        screenshot(&dir, &format!("reports-director-disputed-{lang}")).await;
        // The director's result settles it.
        fill(&dir, &[("score-a-1-2-a", "420"), ("score-a-1-2-b", "388")]).await;
        click(&dir, "#enter-a-1-2").await;
        wait_text(&dir, "#round-a-1 tr[data-pairing='2'] td.score", "420 – 388").await;
        assert_eq!(count(&dir, "#reports-a-1-2").await, 0);
        let p = pairing(&mut t, &slug, 2).await;
        assert_eq!((p.done, p.scores.clone(), reports_of(&p)), (true, vec![420, 388], vec![]));
        // One report suffices from now on.
        fill(&dir, &[("reports-mode-a", "RESULT_REPORTS_ONE_SUFFICES")]).await;
        wait_text(
            &dir,
            "#tournament-result",
            say(
                lang,
                "Division a: players report results: one report suffices.",
                "Группа a: игроки сообщают результаты — достаточно одного сообщения.",
            ),
        )
        .await;
        assert_eq!(get(&mut t, &slug).await.divisions[0].result_reports(), pb::ResultReports::OneSuffices);
        wait_until(
            "the way chosen, drawn again",
            || async { Some(value(&dir, "reports-mode-a").await) },
            |v| v == "RESULT_REPORTS_ONE_SUFFICES",
        )
        .await;
        fill(&dir, &[("reports-mode-a", "RESULT_REPORTS_OFF")]).await;
        wait_until(
            "reports off",
            || {
                let (mut t, slug) = (t.clone(), slug.clone());
                async move { Some(get(&mut t, &slug).await.divisions[0].result_reports()) }
            },
            |&m| m == pb::ResultReports::Off,
        )
        .await;
        dir.close().await.unwrap();
        // A spectator has no form and sees no note once reports are off.
        let spectator = open(&mut driver, &srv.url, lang, size, &format!("/tournaments/{slug}")).await;
        tables_match(&spectator, &mut t, &slug, lang).await;
        assert_eq!(count(&spectator, ".report-form").await, 0);
        assert_eq!(count(&spectator, "#reports-note-a").await, 0);
        assert_eq!(count(&spectator, "#my-table").await, 0);
        spectator.close().await.unwrap();
    }
}

/// A prize list set through the API: the page shows who takes each prize under the standings,
/// provisional until every result is in and then final, redrawn as results come in; the tables
/// are the API's (a reserved one kept); the CSV downloaded is ExportDivisionPrizes's.
#[tokio::test]
async fn a_divisions_prizes_are_shown_live_and_downloaded() {
    let srv = start_directed(ROOT).await;
    let mut driver = Driver::start().await;
    for (lang, size) in SCREENS {
        let slug = format!("prizes-{lang}");
        let names = ["Ann", "Bo", "Cy", "Di"];
        let (mut t, tokens) =
            tournament(&srv, ROOT, (slug.as_str(), slug.as_str()), &names, &[pb::PairingMethod::Manual], 3)
                .await;
        // Di keeps table 9.
        let request = pb::SetReservedTableRequest {
            slug: slug.clone(),
            division: "a".into(),
            player: 4,
            table: Some(9),
            request_id: String::new(),
        };
        t.set_reserved_table(authed(request, ROOT)).await.unwrap();
        let place = |place: u32, value: &str| pb::PrizeSpec {
            kind: Some(pb::prize_spec::Kind::Place(place)),
            value: value.into(),
            exclusive: String::new(),
        };
        let under =
            pb::RatingClass { name: "Under 1600".into(), at_least: None, below: Some(1600), unrated: true };
        let list = vec![
            place(1, "$100"),
            place(2, "$50"),
            pb::PrizeSpec {
                kind: Some(pb::prize_spec::Kind::HighGame(true)),
                value: "a book".into(),
                exclusive: String::new(),
            },
            pb::PrizeSpec {
                kind: Some(pb::prize_spec::Kind::HighLoss(true)),
                value: "a pen".into(),
                exclusive: String::new(),
            },
            pb::PrizeSpec {
                kind: Some(pb::prize_spec::Kind::ClassPlace(pb::ClassPlace { class: Some(under), place: 1 })),
                value: "$20".into(),
                exclusive: String::new(),
            },
        ];
        let request = pb::SetDivisionPrizesRequest {
            slug: slug.clone(),
            division: "a".into(),
            prizes: list,
            request_id: String::new(),
        };
        t.set_division_prizes(authed(request, ROOT)).await.unwrap();
        pair_by_hand(&mut t, &slug, vec![line(1, 2), line(3, 4)]).await;
        // Ann's page (a player's: her table too).
        let c = open(
            &mut driver,
            &srv.url,
            lang,
            size,
            &format!("/tournaments/{slug}#token={}", tokens[0].token),
        )
        .await;
        let provisional = say(lang, "Prizes (provisional)", "Призы (предварительно)");
        wait_text(&c, "#prizes-title-a", provisional).await;
        tables_match(&c, &mut t, &slug, lang).await;
        assert_eq!(
            texts(&c, "#round-a-1 td.table-no").await,
            [say(lang, "Table 1", "Стол 1"), say(lang, "Table 9", "Стол 9")]
        );
        // Nobody takes a prize yet, and the page says why (as the API does).
        let request = pb::GetDivisionPrizesRequest { slug: slug.clone(), division: "a".into() };
        let before = t.get_division_prizes(tonic::Request::new(request)).await.unwrap().into_inner();
        let why: Vec<String> = before
            .awards
            .iter()
            .map(|a| match (lang, a.note.as_str()) {
                ("ru", "no player it is open to has a game with scores") => {
                    "никому: ни у кого из претендентов нет партии со счётом".to_string()
                }
                ("ru", "no game with scores has been lost") => {
                    "никому: ни одна партия со счётом ещё не проиграна".to_string()
                }
                (_, note) => format!("nobody: {note}"),
            })
            .collect();
        assert_eq!(why.len(), 5);
        assert_eq!(texts(&c, "#prize-table-a tbody td.prize-note").await, why);
        // The heads, and the prizes in the list's order.
        assert_eq!(
            texts(&c, "#prize-table-a thead th").await,
            match lang {
                "ru" => ["Приз", "Что", "Кому", "За что"],
                _ => ["Prize", "Value", "Taken by", "Achievement"],
            }
        );
        assert_eq!(
            texts(&c, "#prize-table-a tbody td.prize-what").await,
            match lang {
                "ru" =>
                    ["1-е место", "2-е место", "Лучшая партия", "Лучшее поражение", "Under 1600: 1-е место"],
                _ => ["1st place", "2nd place", "High game", "High loss", "Under 1600: 1st place"],
            }
        );
        // One result in: still provisional, its winners shown.
        result(&mut t, &slug, 1, 420, 380).await;
        let row = |n: u32| format!("#prize-table-a tr[data-prize='{n}']");
        wait_until(
            "the first result's prizes",
            || async { Some(texts(&c, &format!("{} td", row(1))).await) },
            |v| v.len() == 4,
        )
        .await;
        assert_eq!(text(&c, "#prizes-title-a").await.unwrap(), provisional);
        // Both in: final, exactly the API's awards.
        result(&mut t, &slug, 2, 390, 450).await;
        wait_text(&c, "#prizes-title-a", say(lang, "Prizes", "Призы")).await;
        let request = pb::GetDivisionPrizesRequest { slug: slug.clone(), division: "a".into() };
        let awards = t.get_division_prizes(tonic::Request::new(request)).await.unwrap().into_inner();
        assert!(awards.r#final);
        let shown = wait_until(
            "every prize taken",
            || async { Some(texts(&c, "#prize-table-a tbody td.prize-who").await) },
            |v| v.len() == 5,
        )
        .await;
        let by_name: Vec<String> =
            awards.awards.iter().map(|a| names[a.player as usize - 1].to_string()).collect();
        assert_eq!(shown, by_name, "{lang}");
        assert_eq!(shown, ["Di", "Ann", "Di", "Cy", "Di"]);
        assert_eq!(
            texts(&c, "#prize-table-a tbody td.prize-value").await,
            awards.awards.iter().map(|a| a.value.clone()).collect::<Vec<_>>()
        );
        assert_eq!(
            texts(&c, "#prize-table-a tbody td.prize-how").await,
            match lang {
                "ru" =>
                    ["1-0 +60", "1-0 +40", "тур 1: 450-390 против Cy", "тур 1: 390-450 против Di", "1-0 +60"],
                _ => ["1-0 +60", "1-0 +40", "round 1: 450-390 v Cy", "round 1: 390-450 v Di", "1-0 +60"],
            }
        );
        if lang == "en" {
            let achievements: Vec<String> = awards.awards.iter().map(|a| a.achievement.clone()).collect();
            assert_eq!(texts(&c, "#prize-table-a tbody td.prize-how").await, achievements);
        }
        assert!(!sideways(&c).await, "{lang}: the page scrolls sideways");
        script(&c, "document.getElementById('prizes-a').scrollIntoView()").await;
        screenshot(&c, &format!("reports-prizes-{lang}")).await;
        // The CSV is ExportDivisionPrizes's.
        catch_downloads(&c).await;
        assert_eq!(
            text(&c, "#prizes-csv-a").await.unwrap(),
            say(lang, "Download the prizes (CSV)", "Скачать призы (CSV)")
        );
        click(&c, "#prizes-csv-a").await;
        let saved = wait_until(
            "the prizes' CSV",
            || async { Some(script(&c, "return window.saved").await) },
            |v| v.as_array().is_some_and(|a| !a.is_empty()),
        )
        .await;
        let request = pb::ExportDivisionPrizesRequest { slug: slug.clone(), division: "a".into() };
        let csv = t.export_division_prizes(tonic::Request::new(request)).await.unwrap().into_inner().csv;
        assert!(
            csv.starts_with("prize,description,value,player,name,achievement,note\n1,1st place,$100,4,Di,")
        );
        assert_eq!(saved, serde_json::json!([[format!("{slug}-a-prizes.csv"), csv]]));
        c.close().await.unwrap();
    }
}
