//! A division's prize list on the wire: the list as SetDivisionPrizes gives it (each prize's
//! fault named as `prizes[i]`), and who takes each prize as GetDivisionPrizes shows it.

use super::super::errors;
use crate::proto::v1 as pb;
use dawgref_tournament::Division;
use dawgref_tournament::prizes::{Award, Class, Prize, PrizeKind, PrizeList, Winner};
use tonic::Status;

/// The prize list a call gives: INVALID_ARGUMENT naming the prize (`prizes[i]`) that is wrong.
pub(super) fn list_from(prizes: &[pb::PrizeSpec]) -> Result<PrizeList, Status> {
    use pb::prize_spec::Kind;
    let mut list = Vec::with_capacity(prizes.len().min(dawgref_tournament::prizes::MAX_PRIZES + 1));
    for (i, p) in prizes.iter().enumerate() {
        let kind = match &p.kind {
            Some(Kind::Place(place)) => PrizeKind::Place(*place),
            Some(Kind::ClassPlace(c)) => {
                let class = c.class.clone().unwrap_or_default();
                let class = Class {
                    name: class.name,
                    at_least: class.at_least,
                    below: class.below,
                    unrated: class.unrated,
                };
                PrizeKind::ClassPlace { class, place: c.place }
            }
            Some(Kind::HighGame(true)) => PrizeKind::HighGame,
            Some(Kind::HighLoss(true)) => PrizeKind::HighLoss,
            Some(Kind::MostBingos(true)) => PrizeKind::MostBingos,
            Some(Kind::HighGame(false) | Kind::HighLoss(false) | Kind::MostBingos(false)) | None => {
                let why = "say what the prize is for: a place, a class's place, high game, high loss or most bingos";
                return Err(errors::bad_field(&format!("prizes[{i}].kind"), why));
            }
        };
        let prize = Prize::new(kind, p.value.clone());
        list.push(if p.exclusive.is_empty() { prize } else { prize.exclusive(p.exclusive.clone()) });
    }
    PrizeList::new(list).map_err(|e| match e {
        dawgref_tournament::prizes::Error::Prize { number, .. } => {
            errors::bad_field(&format!("prizes[{}]", number - 1), e.to_string())
        }
        dawgref_tournament::prizes::Error::TooMany(_) => errors::bad_field("prizes", e.to_string()),
    })
}

/// The prize list as the wire shows it.
pub(super) fn list_to(list: &PrizeList) -> Vec<pb::PrizeSpec> {
    use pb::prize_spec::Kind;
    let spec = |p: &Prize| {
        let kind = match &p.kind {
            PrizeKind::Place(place) => Kind::Place(*place),
            PrizeKind::ClassPlace { class, place } => Kind::ClassPlace(pb::ClassPlace {
                class: Some(pb::RatingClass {
                    name: class.name.clone(),
                    at_least: class.at_least,
                    below: class.below,
                    unrated: class.unrated,
                }),
                place: *place,
            }),
            PrizeKind::HighGame => Kind::HighGame(true),
            PrizeKind::HighLoss => Kind::HighLoss(true),
            PrizeKind::MostBingos => Kind::MostBingos(true),
        };
        pb::PrizeSpec {
            kind: Some(kind),
            value: p.what.clone(),
            exclusive: p.exclusive.clone().unwrap_or_default(),
        }
    };
    list.prizes().iter().map(spec).collect()
}

/// Who takes each prize, as GetDivisionPrizes shows it.
pub(super) fn awards_to(list: &PrizeList, division: &Division, awards: &[Award]) -> Vec<pb::PrizeAward> {
    let award = |a: &Award| {
        let prize = &list.prizes()[a.prize];
        let mut wire = pb::PrizeAward {
            prize: a.prize as u32 + 1,
            description: prize.kind.description(),
            value: prize.what.clone(),
            ..Default::default()
        };
        match &a.winner {
            Winner::Taken { player, claim, shared } => {
                wire.player = player.0 + 1;
                wire.achievement = claim.text(division);
                wire.shared = *shared;
            }
            Winner::Nobody(why) => wire.note = why.to_string(),
        }
        wire
    };
    awards.iter().filter(|a| a.prize < list.prizes().len()).map(award).collect()
}
