//! ListGames: the live games of every replica, paged in game id order and merged (sleeping ones
//! shown without waking them), or the finished games of the store; a director key sees its own
//! games only.

use super::convert;
use super::errors;
use super::forward;
use super::games::GamesService;
use super::views;
use crate::host::Viewer;
use crate::proto::v1 as pb;
use tonic::{Request, Status};
use uuid::Uuid;

/// ListGames' page size when the request names none, and the largest it may name.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;
/// The longest ListGames query, in characters.
const MAX_QUERY_CHARS: usize = 100;

impl GamesService {
    /// ListGames: the director's listing of live games (this replica's and every live peer's,
    /// sleeping ones without waking them) or of finished games (from the store).
    pub(super) async fn list(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<pb::ListGamesResponse, Status> {
        let director = self.state.identity.director(request.metadata()).await?;
        let (metadata, _, req) = request.into_parts();
        let size = convert::page_size(req.page_size, DEFAULT_PAGE as u32, MAX_PAGE as u32) as usize;
        let after = match req.page_token.as_str() {
            "" => None,
            t => Some(Uuid::parse_str(t).map_err(|_| {
                errors::bad_field(
                    "page_token",
                    "not a token this server gave (a game id from next_page_token)",
                )
            })?),
        };
        let query_chars = req.query.chars().count();
        if query_chars > MAX_QUERY_CHARS {
            return Err(errors::bad_field(
                "query",
                format!("{query_chars} characters: a query has at most {MAX_QUERY_CHARS}"),
            ));
        }
        let labels = super::new_game::labels("labels", &req.labels)?;
        let state = pb::GameState::try_from(req.state)
            .map_err(|_| errors::bad_field("state", format!("unknown state {}", req.state)))?;
        // A director key lists its own games only (none, for labels that contradict its own).
        let Some(labels) = director.narrow(labels) else {
            return Ok(pb::ListGamesResponse::default());
        };
        if !matches!(state, pb::GameState::Unspecified | pb::GameState::Live) {
            if !req.query.trim().is_empty() {
                return Err(errors::bad_field(
                    "query",
                    "a query filters live games only: filter finished games by their labels",
                ));
            }
            // Finished games are in the store, which every replica shares: no replica is asked.
            return self.list_stored(state, labels, after, size).await;
        }
        let query = req.query.trim().to_lowercase();
        // Sleeping games too, judged by what they keep asleep, and shown without being woken.
        let matching = self.state.host.games_in_play(|id, game_labels, names| {
            labels.iter().all(|(k, v)| game_labels.contains(&(k.as_str(), v.as_str())))
                && (query.is_empty()
                    || id.to_string().starts_with(&query)
                    || names.iter().any(|name| name.to_lowercase().contains(&query)))
        });
        let start = after.map_or(0, |a| matching.partition_point(|id| *id <= a));
        let page = &matching[start.min(matching.len())..(start + size).min(matching.len())];
        let next_page_token = match page.last() {
            Some(last) if start + size < matching.len() => last.to_string(),
            _ => String::new(),
        };
        let mut games = Vec::with_capacity(page.len());
        for id in page {
            // A sleeping game is shown from the store and sleeps on; an awake one by its session.
            let shown = match self.state.host.asleep_snapshot(*id).await {
                Some(read) => read.map(|(snapshot, now_ms)| {
                    views::view(&id.to_string(), &snapshot, Viewer::Watcher, now_ms)
                }),
                None => self
                    .state
                    .host
                    .session(&id.to_string())
                    .await
                    .map(|s| views::session_view(&s, Viewer::Watcher)),
            };
            match shown {
                Ok(view) => games.push(view),
                // Set aside, or gone to another replica, since it was listed: left out.
                Err(e) => tracing::debug!(game = %id, error = %e, "a listed game could not be shown"),
            }
        }
        let local = pb::ListGamesResponse { games, next_page_token, total: matching.len() as u32 };
        // A forwarded listing is this replica's part of another replica's answer.
        if metadata.contains_key(forward::FORWARDED) {
            return Ok(local);
        }
        self.list_everywhere(&metadata, &req, size, local).await
    }

    /// ListGames across the replicas: this replica's page, and each live peer's page for the same
    /// request, merged in game id order. Each page is the first `size` games after the token on
    /// its replica, so the first `size` of their union is the first `size` of all.
    async fn list_everywhere(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        req: &pb::ListGamesRequest,
        size: usize,
        local: pb::ListGamesResponse,
    ) -> Result<pb::ListGamesResponse, Status> {
        let Some(replicas) = self.state.host.peers() else {
            return Ok(local);
        };
        let peers = replicas.others().await.map_err(errors::host)?;
        let answers = futures_util::future::join_all(peers.iter().map(|addr| {
            self.state.forwarder.call_peer(
                addr,
                forward::outgoing(metadata, req.clone(), &replicas),
                |mut c, r| async move { c.list_games(r).await },
            )
        }))
        .await;
        let mut games = local.games;
        let mut total = local.total;
        let mut more = !local.next_page_token.is_empty();
        for (addr, answer) in peers.iter().zip(answers) {
            let page = match answer {
                Ok(page) => page.into_inner(),
                Err(status) if forward::unreachable(&status) => {
                    return Err(Status::unavailable(format!(
                        "replica {} did not answer ({}); retry",
                        crate::text::clip(addr),
                        crate::text::clip(status.message())
                    )));
                }
                Err(status) => return Err(status),
            };
            total += page.total;
            more |= !page.next_page_token.is_empty();
            games.extend(page.games);
        }
        // Lower-case hyphenated ids sort as the ids do.
        games.sort_by(|a, b| a.game_id.cmp(&b.game_id));
        // A game moving between replicas may be held by both for a moment.
        let before = games.len();
        games.dedup_by(|a, b| a.game_id == b.game_id);
        total -= (before - games.len()) as u32;
        if games.len() > size {
            games.truncate(size);
            more = true;
        }
        let next_page_token = match games.last() {
            Some(last) if more => last.game_id.clone(),
            _ => String::new(),
        };
        Ok(pb::ListGamesResponse { games, next_page_token, total })
    }

    async fn list_stored(
        &self,
        state: pb::GameState,
        labels: Vec<(String, String)>,
        after: Option<Uuid>,
        size: usize,
    ) -> Result<pb::ListGamesResponse, Status> {
        let query = crate::host::GameQuery {
            labels,
            state: if state == pb::GameState::Finished {
                crate::host::GameState::Finished
            } else {
                crate::host::GameState::Any
            },
            after,
            limit: size + 1,
        };
        let page = self.state.host.stored_games(query).await.map_err(errors::host)?;
        let more = page.ids.len() > size;
        let mut games = Vec::with_capacity(size.min(page.ids.len()));
        for id in page.ids.iter().take(size) {
            let id = id.to_string();
            // A game set aside since it was listed is left out.
            match self.state.snapshot(&id).await {
                Ok(snapshot) => games.push(views::view(
                    &id,
                    &snapshot,
                    Viewer::Watcher,
                    snapshot.game().history().last().map_or(0, |e| e.time_ms),
                )),
                Err(status) if status.code() == tonic::Code::FailedPrecondition => continue,
                Err(status) => return Err(status),
            }
        }
        let next_page_token = match page.ids.get(size.saturating_sub(1)) {
            Some(last) if more => last.to_string(),
            _ => String::new(),
        };
        Ok(pb::ListGamesResponse { games, next_page_token, total: page.total.min(u32::MAX as u64) as u32 })
    }
}
