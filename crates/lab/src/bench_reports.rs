//! `dawgref-lab bench reports`: players report their own results, all at once. A division of
//! `players` people on one SQLite server takes reports when both agree; round 1 is paired (no
//! games: played over the board), then every player reports their pairing's result with their
//! own token at the same moment (each pairing's two reports agreeing). Each report's latency is
//! timed (p50, p99, max) with the process's CPU time over the flood, and then the count is
//! checked: every result entered exactly once. `--floor` first sends as many health checks the
//! same way: what the transport alone takes on the machine, the least a report could.

use super::CliResult;
use super::bench_server::pct;
use super::tournament::{authed, on_server, seat_name};
use clap::Args;
use dawgref::proto::v1 as pb;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ReportsArgs {
    /// Players in the division: each reports once, all at the same moment.
    #[arg(long, default_value_t = 1000)]
    players: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Scratch directory for the store (must not exist; removed afterwards).
    #[arg(long, default_value = "data/bench-reports")]
    dir: std::path::PathBuf,
    /// First the floor: as many health checks (the cheapest call there is) at the same moment,
    /// over the same connection, to see what the transport alone takes.
    #[arg(long)]
    floor: bool,
    /// The players' connections to the server (each player's calls go over one of them, in
    /// turn): 1 puts every call through one HTTP/2 connection; a room of phones has one each.
    #[arg(long, default_value_t = 1)]
    connections: u32,
}

/// `n` health checks released at one moment over `channels`: each one's latency, sorted, and the
/// process's CPU time over them.
async fn floor(
    channels: &[tonic::transport::Channel],
    n: u32,
) -> Result<(Vec<Duration>, Duration), Box<dyn std::error::Error>> {
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let go = std::sync::Arc::new(tokio::sync::Barrier::new(n as usize + 1));
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..n as usize {
        let mut health = HealthClient::new(channels[i % channels.len()].clone());
        let go = go.clone();
        calls.spawn(async move {
            go.wait().await;
            let started = Instant::now();
            health.check(HealthCheckRequest { service: String::new() }).await.map(|_| started.elapsed())
        });
    }
    let cpu = process_cpu();
    go.wait().await;
    let mut latencies = Vec::with_capacity(n as usize);
    while let Some(call) = calls.join_next().await {
        latencies.push(call??);
    }
    let cpu = process_cpu() - cpu;
    latencies.sort();
    Ok((latencies, cpu))
}

/// The CPU time every thread of this process has had (`/proc/self/task/*/schedstat`, in ns).
fn process_cpu() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Duration::ZERO };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

pub fn run(args: ReportsArgs) -> CliResult {
    on_server(&args.dir.clone(), |channel, url| async move {
        // The players' connections: as many as asked, each player's calls over one of them.
        let mut channels = Vec::new();
        for _ in 0..args.connections.max(1) {
            channels.push(tonic::transport::Endpoint::from_shared(url.clone())?.connect().await?);
        }
        let floor = if args.floor { Some(floor(&channels, args.players).await?) } else { None };
        let mut t = pb::tournaments_service_client::TournamentsServiceClient::new(channel);
        let players = (0..args.players)
            .map(|i| pb::TournamentPlayerSpec {
                bot_account: String::new(),
                name: format!("Player {}", seat_name(i)),
                rating: 2000 - i % 1000,
                bot: None,
                lifetime_games: None,
            })
            .collect();
        let request = pb::CreateTournamentRequest {
            allow_same_names: false,
            name: "Lab reports".into(),
            slug: "reports".into(),
            game: Some(pb::TournamentGameSettings::default()),
            divisions: vec![pb::DivisionSpec {
                bots_only: false,
                name: "big".into(),
                players,
                rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() }],
                controls: None,
                result_reports: pb::ResultReports::BothAgree as i32,
            }],
            seed: Some(args.seed),
        };
        let made = t.create_tournament(authed(request)).await?.into_inner();
        let tokens: Vec<String> = made.player_tokens.into_iter().map(|x| x.token).collect();
        let pair = pb::PairRoundRequest {
            slug: "reports".into(),
            division: "big".into(),
            round: 1,
            ..Default::default()
        };
        let round = t.pair_round(authed(pair)).await?.into_inner().round.unwrap_or_default();
        let games: Vec<(u32, u32, u32)> =
            round.pairings.iter().filter(|p| p.second != 0).map(|p| (p.number, p.first, p.second)).collect();
        let bar = dawgref::console::progress_bar(2 * games.len() as u64, "reports");
        let go = std::sync::Arc::new(tokio::sync::Barrier::new(2 * games.len() + 1));
        let mut calls = tokio::task::JoinSet::new();
        for &(number, first, second) in &games {
            // The first player's score is 400 + the pairing's number mod 97, the second's 380.
            let (a, b) = (400 + (number % 97) as i32, 380);
            for (player, mine, theirs, outcome) in
                [(first, a, b, pb::ReportedOutcome::Win), (second, b, a, pb::ReportedOutcome::Loss)]
            {
                let mut t = pb::tournaments_service_client::TournamentsServiceClient::new(
                    channels[player as usize % channels.len()].clone(),
                );
                let token = tokens[player as usize - 1].clone();
                let go = go.clone();
                let bar = bar.clone();
                calls.spawn(async move {
                    let request = pb::ReportResultRequest {
                        slug: "reports".into(),
                        round: 1,
                        pairing: number,
                        my_score: mine,
                        opponent_score: theirs,
                        outcome: outcome as i32,
                        request_id: format!("report-{player}"),
                    };
                    let mut request = tonic::Request::new(request);
                    request
                        .metadata_mut()
                        .insert("authorization", format!("Bearer {token}").parse().expect("ascii"));
                    go.wait().await;
                    let started = Instant::now();
                    let answer = t.report_result(request).await;
                    bar.inc(1);
                    answer.map(|a| (started.elapsed(), a.into_inner().state()))
                });
            }
        }
        let cpu = process_cpu();
        go.wait().await;
        let started = Instant::now();
        let mut latencies = Vec::with_capacity(2 * games.len());
        let mut entered = 0;
        while let Some(call) = calls.join_next().await {
            let (latency, state) = call??;
            latencies.push(latency);
            entered += usize::from(state == pb::ReportState::Entered);
        }
        let wall = started.elapsed();
        let cpu = process_cpu() - cpu;
        bar.finish_and_clear();
        // Every result in, exactly once: the division's pairings, and the log's result events.
        let tournament =
            t.get_tournament(authed(pb::GetTournamentRequest { slug: "reports".into() })).await?.into_inner();
        let division = tournament.tournament.unwrap_or_default().divisions.remove(0);
        let done = division.rounds[0].pairings.iter().filter(|p| p.second != 0 && p.done).count();
        let filter = pb::TournamentLogFilter { kinds: vec!["result".into()], ..Default::default() };
        let log = pb::GetTournamentLogRequest {
            slug: "reports".into(),
            filter: Some(filter),
            page_size: 1000,
            ..Default::default()
        };
        let results = t.get_tournament_log(authed(log)).await?.into_inner().events.len();
        if (done, results, entered) != (games.len(), games.len(), games.len()) {
            return Err(format!(
                "{} pairings: {done} done, {results} results logged, {entered} reports answered entered",
                games.len()
            )
            .into());
        }
        latencies.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if let Some((floor, cpu)) = floor {
            println!(
                "floor: {} health checks at once: p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms; CPU {:.0} ms",
                floor.len(),
                pct(&floor, 0.5) / 1000.0,
                pct(&floor, 0.99) / 1000.0,
                ms(*floor.last().unwrap_or(&Duration::ZERO)),
                ms(cpu)
            );
        }
        println!(
            "{} players, {} reports at once: every result entered once ({} results); report p50 {:.1} ms  \
             p99 {:.1} ms  max {:.1} ms; all in {:.0} ms; CPU {:.0} ms",
            args.players,
            latencies.len(),
            results,
            pct(&latencies, 0.5) / 1000.0,
            pct(&latencies, 0.99) / 1000.0,
            ms(*latencies.last().unwrap_or(&Duration::ZERO)),
            ms(wall),
            ms(cpu)
        );
        Ok(())
    })
}
