//! The plan changed after the start, as the wire asks it: AddRound, RemoveRounds, ReenterPlayer
//! and UnpairRound (each a director's change through the events layer's record, once per
//! request id), and AddPlayer's choice for a late entry's rounds gone. Only the fields are
//! checked here; the rules are the division's and the record's.

use super::{TournamentsService, create, view};
use crate::proto::v1 as pb;
use crate::server::errors;
use dawgref_events::Record;
use dawgref_tournament::Missed;
use tonic::{Request, Status};

/// AddPlayer's `missed_round_spread`: absent when unset, else a bye of that spread.
pub(super) fn missed(spread: Option<i32>) -> Result<Missed, Status> {
    match spread {
        None => Ok(Missed::Absent),
        Some(v) => Ok(Missed::Byes { spread: create::check_spread("missed_round_spread", v)? }),
    }
}

/// What a late entry's event adds: how the rounds they missed count (nothing before round 1).
pub(super) fn missed_detail(rec: &Record, d: usize, missed: Missed) -> String {
    match (rec.division_at(d).rounds_paired(), missed) {
        (0, _) => String::new(),
        (1, Missed::Absent) => ", absent from round 1".into(),
        (n, Missed::Absent) => format!(", absent from rounds 1 to {n}"),
        (1, Missed::Byes { spread }) => format!(", a bye ({spread:+}) for round 1"),
        (n, Missed::Byes { spread }) => format!(", a bye ({spread:+}) for each of rounds 1 to {n}"),
    }
}

pub(super) async fn add_round(
    service: &TournamentsService,
    request: Request<pb::AddRoundRequest>,
) -> Result<pb::AddRoundResponse, Status> {
    let r = request.get_ref();
    if r.rounds.is_empty() {
        return Err(errors::bad_field("rounds", "at least one round to add"));
    }
    let methods = create::check_methods("rounds", &r.rounds)?;
    service
        .directed(request.metadata(), &r.slug, ("AddRound", &r.request_id), |rec| {
            let d = rec.division(&r.division)?;
            rec.add_rounds(d, &methods)?;
            Ok(pb::AddRoundResponse { division: Some(view::division(rec, d)) })
        })
        .await
}

pub(super) async fn remove_rounds(
    service: &TournamentsService,
    request: Request<pb::RemoveRoundsRequest>,
) -> Result<pb::RemoveRoundsResponse, Status> {
    let r = request.get_ref();
    if r.count == 0 {
        return Err(errors::bad_field("count", "at least one round to take off"));
    }
    service
        .directed(request.metadata(), &r.slug, ("RemoveRounds", &r.request_id), |rec| {
            let d = rec.division(&r.division)?;
            rec.remove_rounds(d, r.count as usize)?;
            Ok(pb::RemoveRoundsResponse { division: Some(view::division(rec, d)) })
        })
        .await
}

pub(super) async fn reenter_player(
    service: &TournamentsService,
    request: Request<pb::ReenterPlayerRequest>,
) -> Result<pb::ReenterPlayerResponse, Status> {
    let r = request.get_ref();
    service
        .directed(request.metadata(), &r.slug, ("ReenterPlayer", &r.request_id), |rec| {
            let d = rec.division(&r.division)?;
            rec.reenter(d, r.player)?;
            Ok(pb::ReenterPlayerResponse { division: Some(view::division(rec, d)) })
        })
        .await
}

pub(super) async fn unpair_round(
    service: &TournamentsService,
    request: Request<pb::UnpairRoundRequest>,
) -> Result<pb::UnpairRoundResponse, Status> {
    let r = request.get_ref();
    service
        .directed(request.metadata(), &r.slug, ("UnpairRound", &r.request_id), |rec| {
            let d = rec.division(&r.division)?;
            let k = rec.round(d, r.round)?;
            rec.unpair(d, k)?;
            Ok(pb::UnpairRoundResponse { division: Some(view::division(rec, d)) })
        })
        .await
}
