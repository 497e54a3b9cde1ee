//! The settings every game of a tournament is made with, as its director gave them: kept with
//! the tournament (JSON, as the rest of its record). The ruleset is kept by its name and the
//! challenge rule by its own (as a game's record and CGP name them); `None` for either is "not
//! said" (English; a single challenge), shown back as not said.
//!
//! Records of earlier builds kept the ruleset and the challenge rule by the API's numbers, and
//! before that the whole as protobuf: [`SettingsRow`] is that row, field for field, read from
//! either form and written with names only, so nothing written before is lost.

use dawgref_engine::game::ChallengeRule;
use dawgref_engine::rules::RulesetKind;
use serde::{Deserialize, Serialize};

/// How every game of a tournament is made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SettingsRow", try_from = "SettingsRow")]
pub struct GameSettings {
    /// The ruleset (None: not said, English).
    pub ruleset: Option<RulesetKind>,
    /// The lexicon by name (empty: the ruleset's own).
    pub lexicon: String,
    /// The challenge rule (None: not said, a single challenge).
    pub challenge: Option<ChallengeRule>,
    pub options: Option<GameOptions>,
    pub clock: Option<ClockSettings>,
    /// Least time between a change and a bot's move (unset: the host's default).
    pub bot_delay_ms: Option<u32>,
}

/// [`GameSettings`] as a record keeps them. Earlier builds wrote `ruleset` and `challenge_rule`
/// as the API's numbers (the three rulesets 1 English, 2 Russian, 3 Erudit; the challenge rules
/// 1 void to 6 triple, in the order of `ChallengeRule::ALL`, as the classic rulesets are in
/// `RulesetKind::classic`'s; the tests pin both); this build writes them 0 and names
/// both. The prost tags are those of the protobuf an earlier build wrote.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub(crate) struct SettingsRow {
    #[prost(int32, tag = "1")]
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) ruleset: i32,
    #[prost(string, tag = "7")]
    #[serde(default)]
    pub(crate) ruleset_name: String,
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) lexicon: String,
    #[prost(int32, tag = "3")]
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) challenge_rule: i32,
    #[prost(string, tag = "8")]
    #[serde(default)]
    pub(crate) challenge: String,
    #[prost(message, optional, tag = "4")]
    #[serde(default)]
    pub(crate) options: Option<GameOptions>,
    #[prost(message, optional, tag = "5")]
    #[serde(default)]
    pub(crate) clock: Option<ClockSettings>,
    #[prost(uint32, optional, tag = "6")]
    #[serde(default)]
    pub(crate) bot_delay_ms: Option<u32>,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

impl From<GameSettings> for SettingsRow {
    fn from(g: GameSettings) -> SettingsRow {
        SettingsRow {
            ruleset: 0,
            ruleset_name: g.ruleset.map(|k| k.name().to_string()).unwrap_or_default(),
            lexicon: g.lexicon,
            challenge_rule: 0,
            challenge: g.challenge.map(|c| c.name().to_string()).unwrap_or_default(),
            options: g.options,
            clock: g.clock,
            bot_delay_ms: g.bot_delay_ms,
        }
    }
}

impl TryFrom<SettingsRow> for GameSettings {
    type Error = String;

    fn try_from(row: SettingsRow) -> Result<GameSettings, String> {
        let ruleset = match (row.ruleset_name.as_str(), row.ruleset) {
            ("", 0) => None,
            ("", n) => Some(
                numbered(&RulesetKind::classic(), n)
                    .ok_or_else(|| format!("ruleset {n} is none of the three"))?,
            ),
            (name, _) => Some(RulesetKind::by_name(name).ok_or_else(|| format!("no ruleset {name:?}"))?),
        };
        let challenge = match (row.challenge.as_str(), row.challenge_rule) {
            ("", 0) => None,
            ("", n) => Some(
                numbered(&ChallengeRule::ALL, n)
                    .ok_or_else(|| format!("challenge rule {n} is none of the six"))?,
            ),
            (name, _) => Some(name.parse().map_err(|_| format!("no challenge rule {name:?}"))?),
        };
        Ok(GameSettings {
            ruleset,
            lexicon: row.lexicon,
            challenge,
            options: row.options,
            clock: row.clock,
            bot_delay_ms: row.bot_delay_ms,
        })
    }
}

/// The `n`-th of `items`, counted from 1 as the API numbers them.
fn numbered<T: Copy>(items: &[T], n: i32) -> Option<T> {
    usize::try_from(n - 1).ok().and_then(|i| items.get(i).copied())
}

/// The settings an earlier build wrote as protobuf.
pub(crate) fn settings_from_protobuf(bytes: &[u8]) -> Result<GameSettings, String> {
    let row = <SettingsRow as prost::Message>::decode(bytes).map_err(|e| e.to_string())?;
    GameSettings::try_from(row)
}

/// The rules a game may change from its ruleset's.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct GameOptions {
    #[prost(bool, tag = "1")]
    pub bonus_per_challenge: bool,
    #[prost(bool, tag = "2")]
    pub reveal_invalid_words: bool,
    #[prost(bool, tag = "3")]
    pub blank_scores_letter: bool,
    #[prost(bool, optional, tag = "4")]
    pub no_repeated_words: Option<bool>,
    #[prost(uint32, optional, tag = "5")]
    pub scoreless_turn_limit: Option<u32>,
    #[prost(uint32, optional, tag = "6")]
    pub exchange_limit: Option<u32>,
}

/// A game's clock: a chess clock (initial time, increment, overtime and its penalty) or a
/// correspondence clock (`per_move_ms`).
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ClockSettings {
    #[prost(uint64, tag = "1")]
    pub initial_ms: u64,
    #[prost(uint64, tag = "2")]
    pub increment_ms: u64,
    #[prost(uint64, tag = "3")]
    pub max_overtime_ms: u64,
    #[prost(int32, tag = "4")]
    pub penalty_per_minute: i32,
    #[prost(uint64, tag = "5")]
    pub per_move_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_written_by_name_and_read_back_the_same() {
        for ruleset in RulesetKind::all().into_iter().map(Some).chain([None]) {
            for challenge in ChallengeRule::ALL.into_iter().map(Some).chain([None]) {
                let settings = GameSettings { ruleset, challenge, lexicon: "x".into(), ..Default::default() };
                let json = serde_json::to_value(&settings).unwrap();
                assert_eq!(json["ruleset_name"], ruleset.map_or("", |k| k.name()));
                assert_eq!(json["challenge"], challenge.map_or("", |c| c.name()));
                assert!(json.get("ruleset").is_none() && json.get("challenge_rule").is_none(), "{json}");
                assert_eq!(serde_json::from_value::<GameSettings>(json).unwrap(), settings);
            }
        }
    }

    #[test]
    fn settings_an_earlier_build_kept_by_the_wires_numbers_read_as_what_they_named() {
        // As the last build wrote them: the numbers, an empty name, every field present.
        let json = r#"{"ruleset":3,"ruleset_name":"","lexicon":"","challenge_rule":5,
            "options":null,"clock":null,"bot_delay_ms":null}"#;
        let settings: GameSettings = serde_json::from_str(json).unwrap();
        assert_eq!(
            (settings.ruleset, settings.challenge),
            (Some(RulesetKind::erudit()), Some(ChallengeRule::TenPoint))
        );
        let named = r#"{"ruleset":0,"ruleset_name":"catalan","lexicon":"dicc","challenge_rule":0}"#;
        let settings: GameSettings = serde_json::from_str(named).unwrap();
        assert_eq!((settings.ruleset.map(|k| k.name()), settings.challenge), (Some("catalan"), None));
        let unset = r#"{"ruleset":0,"ruleset_name":"","lexicon":"","challenge_rule":0}"#;
        assert_eq!(serde_json::from_str::<GameSettings>(unset).unwrap(), GameSettings::default());
    }

    #[test]
    fn settings_naming_no_ruleset_or_rule_there_is_are_refused_by_name() {
        let cases = [
            (r#"{"ruleset":4}"#, "ruleset 4 is none of the three"),
            (r#"{"ruleset_name":"klingon"}"#, "no ruleset \"klingon\""),
            (r#"{"challenge_rule":7}"#, "challenge rule 7 is none of the six"),
            (r#"{"challenge":"quadruple"}"#, "no challenge rule \"quadruple\""),
        ];
        for (json, why) in cases {
            let e = serde_json::from_str::<GameSettings>(json).unwrap_err().to_string();
            assert!(e.starts_with(why), "{json}: {e}");
        }
    }
}
