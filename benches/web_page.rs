//! The web client's cost to a visitor: bytes over the wire and time to the first render of a
//! live game's board, in headless Chromium on this machine, against an in-process server.
//! `cargo bench --bench web_page` (needs Debian's chromium and chromium-driver, as the tests do).
//! Cold: a new browser profile each time (nothing cached). Warm: a reload of the same page
//! (every asset revalidated by its ETag: 304, no body).

#[path = "../tests/common/browser.rs"]
#[allow(dead_code)]
mod browser;

use browser::*;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::server::{self, ServerConfig};
use fantoccini::Client;

const VISITS: usize = 15;

fn authed<T>(msg: T, token: &str) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// One visit's figures, read from the page's Performance API.
#[derive(Debug)]
struct Visit {
    /// Milliseconds from navigation start to the frame that first shows the board.
    first_render_ms: f64,
    /// Bytes over the wire (headers included) of the page and its files, and requests made.
    asset_bytes: u64,
    asset_requests: u64,
    /// Bytes of the gRPC-web answers that completed (GetGame, ListLexicons…; the watch stream
    /// stays open and is not counted).
    api_bytes: u64,
}

async fn visit(c: &Client, url: &str, reload: bool) -> Visit {
    if reload {
        c.refresh().await.unwrap();
    } else {
        c.goto(url).await.unwrap();
    }
    wait_until(
        "the board's first render",
        || async { script(c, "return performance.getEntriesByName('dawgref:board').length").await.as_u64() },
        |&n| n == 1,
    )
    .await;
    let figures = script(
        c,
        r#"
        const nav = performance.getEntriesByType("navigation")[0];
        const res = performance.getEntriesByType("resource");
        const assets = res.filter((r) => r.initiatorType !== "fetch" || r.name.includes("/web/"));
        const api = res.filter((r) => r.initiatorType === "fetch" && !r.name.includes("/web/"));
        const sum = (xs) => xs.reduce((a, r) => a + r.transferSize, 0);
        return [performance.getEntriesByName("dawgref:board")[0].startTime,
                nav.transferSize + sum(assets), 1 + assets.length, sum(api)];
        "#,
    )
    .await;
    let f = figures.as_array().unwrap();
    Visit {
        first_render_ms: f[0].as_f64().unwrap(),
        asset_bytes: f[1].as_f64().unwrap() as u64,
        asset_requests: f[2].as_u64().unwrap(),
        api_bytes: f[3].as_f64().unwrap() as u64,
    }
}

fn report(what: &str, visits: &[Visit]) {
    let mut ms: Vec<f64> = visits.iter().map(|v| v.first_render_ms).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    let bytes = visits.iter().map(|v| v.asset_bytes).max().unwrap();
    let requests = visits.iter().map(|v| v.asset_requests).max().unwrap();
    let api = visits.iter().map(|v| v.api_bytes).max().unwrap();
    println!(
        "{what:5} {} visits: first render median {:.0} ms, p90 {:.0} ms, min {:.0} ms; page and files {bytes} bytes \
         in {requests} requests; gRPC-web answers {api} bytes",
        visits.len(),
        at(0.5),
        at(0.9),
        ms[0],
    );
}

#[tokio::main]
async fn main() {
    let config = ServerConfig { lexicons: vec!["en".into()], ..ServerConfig::default() };
    let lexicons = server::load_lexicons(&config).unwrap();
    let (handle, _) = server::Builder::new(lexicons).start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    handle.spawn(listener);

    // A live game some turns in: the person plays the best play, the bot answers.
    let mut g = GamesServiceClient::connect(base.clone()).await.unwrap();
    let mut a = AnalysisServiceClient::connect(base.clone()).await.unwrap();
    let seat = |kind| pb::SeatSpec { kind: Some(kind), think_ms: None };
    let created = g
        .create_game(pb::CreateGameRequest {
            seats: vec![
                seat(pb::seat_spec::Kind::Human(pb::HumanSeat { name: "Ada".into(), open: false })),
                seat(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)),
            ],
            seed: Some(7),
            bot_delay_ms: Some(0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let (id, token) = (created.game_id.clone(), created.seat_tokens[0].clone());
    for _ in 0..4 {
        let view = loop {
            let v = g
                .get_game(authed(pb::GetGameRequest { game_id: id.clone() }, &token))
                .await
                .unwrap()
                .into_inner()
                .view
                .unwrap();
            if v.to_move == 0 {
                break v;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        let position =
            Some(pb::Position { source: Some(pb::position::Source::GameId(id.clone())), lexicon: "".into() });
        let req = pb::GenerateMovesRequest { position, limit: 1, ..Default::default() };
        let best = a.generate_moves(authed(req, &token)).await.unwrap().into_inner().message().await.unwrap();
        let action = match best {
            Some(m) => pb::submit_turn_request::Action::Play(m.play.unwrap()),
            None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
        };
        let turn = pb::SubmitTurnRequest {
            game_id: id.clone(),
            expected_turn: Some(view.turn),
            request_id: String::new(),
            action: Some(action),
        };
        g.submit_turn(authed(turn, &token)).await.unwrap();
    }
    let url = format!("{base}/games/{id}");

    let mut driver = Driver::start().await;
    let mut cold = Vec::new();
    for _ in 0..VISITS {
        let c = driver.browser().await;
        cold.push(visit(&c, &url, false).await);
        c.close().await.unwrap();
    }
    let c = driver.browser().await;
    visit(&c, &url, false).await;
    let mut warm = Vec::new();
    for _ in 0..VISITS {
        warm.push(visit(&c, &url, true).await);
    }
    c.close().await.unwrap();
    println!("a watcher's view of a live game four turns each in, {}", url.replace(&id, "<id>"));
    report("cold", &cold);
    report("warm", &warm);
}
