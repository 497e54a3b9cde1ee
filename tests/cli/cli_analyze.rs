//! `dawgref analyze` as a user runs it: a record reviewed offline, a table with a row per turn
//! and a summary per player, or the whole result as JSON; a record that does not replay is
//! refused with its reason.

use crate::dawgref;

fn record(name: &str) -> String {
    format!("{}/tests/data/gcg/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_record_is_reviewed_as_a_table_and_a_summary() {
    let (code, out, err) =
        dawgref(&["analyze", &record("logan.gcg"), "--ms-per-turn", "50", "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(record("logan.gcg")).unwrap();
    let moves = dawgref::review::racks_shown(&dawgref::notation::gcg::parse(&text).unwrap()).len();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("turn  player"), "{out}");
    // A row per turn, numbered from 1, then a blank line and a line per player.
    let rows: Vec<&str> = lines[1..].iter().take_while(|l| !l.is_empty()).copied().collect();
    assert_eq!(rows.len(), moves, "{out}");
    assert!(rows[0].trim_start().starts_with("1  Maven"), "{}", rows[0]);
    let summary: Vec<&str> = lines[rows.len() + 2..].to_vec();
    assert_eq!(summary.len(), 2, "{out}");
    assert!(summary[0].starts_with("Maven: ") && summary[1].starts_with("AdamLogan: "), "{out}");
    assert!(summary.iter().all(|l| l.contains("accuracy ")), "{out}");
    assert!(err.contains(&format!("{moves} turns in ")), "{err}");
}

#[test]
fn json_gives_every_figure_and_a_best_play_loses_nothing() {
    let (code, out, err) =
        dawgref(&["analyze", &record("doug_v_emely.gcg"), "--ms-per-turn", "50", "--json", "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let turns = v["turns"].as_array().unwrap();
    assert!(!turns.is_empty());
    for t in turns {
        if !t["analysable"].as_bool().unwrap() {
            continue;
        }
        let lost = t["lost"].as_f64().unwrap();
        assert!(lost >= 0.0);
        if t["played"]["move"] == t["best"]["move"] {
            assert_eq!((lost, t["class"].as_str().unwrap()), (0.0, "best"), "{t}");
        }
    }
    let players = v["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    for (seat, p) in players.iter().enumerate() {
        let counted: u64 = p["classes"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
        assert_eq!(counted, p["turns"].as_u64().unwrap());
        // Every judged turn in one grade, as its turn says; the index their weights added up.
        let grades = p["grades"].as_object().unwrap();
        let mine = turns.iter().filter(|t| t["seat"] == seat && t["analysable"] == true);
        let mut by_turns = std::collections::BTreeMap::<String, u64>::new();
        for t in mine {
            *by_turns.entry(t["grade"].as_str().unwrap().to_string()).or_default() += 1;
        }
        for (grade, n) in grades {
            assert_eq!(
                n.as_u64().unwrap(),
                by_turns.get(grade).copied().unwrap_or(0),
                "seat {seat}: {grade}"
            );
        }
        let weighed = 0.2 * grades["small"].as_f64().unwrap()
            + 0.5 * grades["medium"].as_f64().unwrap()
            + grades["large"].as_f64().unwrap();
        assert!((p["mistake_index"].as_f64().unwrap() - weighed).abs() < 1e-9, "seat {seat}: {p}");
    }
}

#[test]
fn a_record_that_does_not_replay_is_refused() {
    let dir = std::env::temp_dir().join(format!("dawgref-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.gcg");
    std::fs::write(&bad, "#player1 a A\n#player2 b B\n>a: QQQQQQQ 8H QQQ +30 30\n").unwrap();
    let (code, out, err) = dawgref(&["analyze", bad.to_str().unwrap(), "--ms-per-turn", "50"]);
    assert_ne!(code, 0);
    assert_eq!(out, "");
    assert!(err.contains("bad.gcg"), "{err}");
    let (code, _, err) = dawgref(&["analyze", bad.to_str().unwrap(), "--ms-per-turn", "10"]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
