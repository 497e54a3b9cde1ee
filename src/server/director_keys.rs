//! The director keys (`DirectorsService.CreateDirectorKey`, `ListDirectorKeys`,
//! `RevokeDirectorKey`): the root director makes, lists and revokes them; a key's token is shown
//! once and kept as its hash.

use super::errors;
use super::state::AppState;
use crate::proto::v1 as pb;
use tonic::{Request, Status};

/// `DirectorsService.CreateDirectorKey`: the root director makes a key for the games of its
/// labels; its token is answered once.
pub(super) async fn create(
    state: &AppState,
    request: Request<pb::CreateDirectorKeyRequest>,
) -> Result<pb::CreateDirectorKeyResponse, Status> {
    let director = state.identity.director(request.metadata()).await?;
    let r = request.into_inner();
    if !super::new_game::is_name(&r.name) {
        return Err(errors::bad_field(
            "name",
            format!(
                "{:?}: 1 to {} characters of a-z, 0-9, '_', '-' and '.'",
                crate::text::clip(&r.name),
                super::new_game::MAX_LABEL_KEY
            ),
        ));
    }
    let labels = super::new_game::labels("labels", &r.labels)?;
    if labels.is_empty() {
        return Err(errors::bad_field(
            "labels",
            "a key needs at least one label (the games it directs); the root token directs them all",
        ));
    }
    let (token, hash) = super::auth::new_token()?;
    let key = state.host.add_director_key(&director, r.name, labels, hash).await.map_err(errors::host)?;
    tracing::info!(key = %key.name, labels = ?key.labels, "director key made");
    Ok(pb::CreateDirectorKeyResponse { key: Some(key_view(key)), token })
}

/// `DirectorsService.ListDirectorKeys`, the root director's alone.
pub(super) async fn list(
    state: &AppState,
    request: Request<pb::ListDirectorKeysRequest>,
) -> Result<pb::ListDirectorKeysResponse, Status> {
    let director = state.identity.director(request.metadata()).await?;
    let keys = state.host.director_keys(&director).await.map_err(errors::host)?;
    Ok(pb::ListDirectorKeysResponse { keys: keys.into_iter().map(key_view).collect() })
}

/// `DirectorsService.RevokeDirectorKey`, the root director's alone (revoking twice keeps the
/// first time).
pub(super) async fn revoke(
    state: &AppState,
    request: Request<pb::RevokeDirectorKeyRequest>,
) -> Result<pb::RevokeDirectorKeyResponse, Status> {
    let director = state.identity.director(request.metadata()).await?;
    let name = request.into_inner().name;
    if !super::new_game::is_name(&name) {
        return Err(errors::bad_field("name", format!("{:?} is not a key's name", crate::text::clip(&name))));
    }
    let key = state.host.revoke_director_key(&director, name).await.map_err(errors::host)?;
    tracing::info!(key = %key.name, "director key revoked");
    Ok(pb::RevokeDirectorKeyResponse { key: Some(key_view(key)) })
}

/// A director key as the wire shows it (never its hash).
fn key_view(key: crate::host::DirectorKey) -> pb::DirectorKey {
    pb::DirectorKey {
        name: key.name,
        labels: key.labels.into_iter().collect(),
        created_unix_ms: key.created_unix_ms,
        revoked_unix_ms: key.revoked_unix_ms.unwrap_or(0),
    }
}
