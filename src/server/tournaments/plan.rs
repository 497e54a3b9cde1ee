//! The plan changed after the start, as the wire asks it: AddRound, RemoveRounds, ReenterPlayer
//! and UnpairRound (each a director's command of the events layer's, once per request id), and
//! AddPlayer's choice for a late entry's rounds gone. Only the fields are checked here; the
//! rules are the division's and the layer's.

use super::{TournamentsService, create};
use crate::proto::v1 as pb;
use crate::server::errors;
use dawgref_events::{Command, Outcome, Record};
use dawgref_tournament::Missed;
use tonic::{Request, Status};

/// AddPlayer's `missed_round_spread`: absent when unset, else a bye of that spread.
pub(super) fn missed(spread: Option<i32>) -> Result<Missed, Status> {
    match spread {
        None => Ok(Missed::Absent),
        Some(v) => Ok(Missed::Byes { spread: create::check_spread("missed_round_spread", v)? }),
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
    let command = Command::AddRounds { division: r.division.clone(), methods };
    let answer = |rec: &Record, o: Outcome| pb::AddRoundResponse { division: super::division_of(rec, o) };
    service.command(request.metadata(), &r.slug, &r.request_id, command, answer).await
}

pub(super) async fn remove_rounds(
    service: &TournamentsService,
    request: Request<pb::RemoveRoundsRequest>,
) -> Result<pb::RemoveRoundsResponse, Status> {
    let r = request.get_ref();
    if r.count == 0 {
        return Err(errors::bad_field("count", "at least one round to take off"));
    }
    let command = Command::RemoveRounds { division: r.division.clone(), count: r.count };
    let answer = |rec: &Record, o: Outcome| pb::RemoveRoundsResponse { division: super::division_of(rec, o) };
    service.command(request.metadata(), &r.slug, &r.request_id, command, answer).await
}

pub(super) async fn reenter_player(
    service: &TournamentsService,
    request: Request<pb::ReenterPlayerRequest>,
) -> Result<pb::ReenterPlayerResponse, Status> {
    let r = request.get_ref();
    let command = Command::ReenterPlayer { division: r.division.clone(), player: r.player };
    let answer =
        |rec: &Record, o: Outcome| pb::ReenterPlayerResponse { division: super::division_of(rec, o) };
    service.command(request.metadata(), &r.slug, &r.request_id, command, answer).await
}

pub(super) async fn unpair_round(
    service: &TournamentsService,
    request: Request<pb::UnpairRoundRequest>,
) -> Result<pb::UnpairRoundResponse, Status> {
    let r = request.get_ref();
    let command = Command::UnpairRound { division: r.division.clone(), round: r.round };
    let answer = |rec: &Record, o: Outcome| pb::UnpairRoundResponse { division: super::division_of(rec, o) };
    service.command(request.metadata(), &r.slug, &r.request_id, command, answer).await
}
