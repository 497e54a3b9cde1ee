//! Which rules a division's rating estimates follow: a control of the division, kept with it
//! (`Controls::rating_system`); the estimates themselves are [`crate::ratings`]'.

use serde::{Deserialize, Serialize};

/// How a division's players are rated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RatingSystem {
    /// No estimates.
    #[default]
    None,
    /// NASPA as TSH's `nsa2008` profile: logistic expectation, multipliers by band with band
    /// crossing, acceleration with feedback, segments for long events, a floor of 1.
    Nsa2008,
    /// NASPA's 2024 rules as TSH's `naspa2024`: `nsa2008` without the floor, lifetime games
    /// counted on at each segment.
    Naspa2024,
    /// A NASPA club event (TSH's `nsa2008 lct`): no acceleration, the change divided by 3 and
    /// capped at ±50.
    NaspaClub,
    /// The ABSP's: each game worth the opponent's rating (clamped to the player's own ±40) ±50.
    Absp,
}

impl RatingSystem {
    /// Every system, in the order the API numbers them.
    pub const ALL: [RatingSystem; 5] = [
        RatingSystem::None,
        RatingSystem::Nsa2008,
        RatingSystem::Naspa2024,
        RatingSystem::NaspaClub,
        RatingSystem::Absp,
    ];

    pub fn is_none(&self) -> bool {
        *self == RatingSystem::None
    }

    /// Its name as TSH's configuration and the docs give it.
    pub fn name(self) -> &'static str {
        match self {
            RatingSystem::None => "none",
            RatingSystem::Nsa2008 => "nsa2008",
            RatingSystem::Naspa2024 => "naspa2024",
            RatingSystem::NaspaClub => "nsa2008 lct",
            RatingSystem::Absp => "absp",
        }
    }
}
