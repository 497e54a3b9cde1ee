//! The `Lexicons` service: which word lists are loaded, and word judgements.

use super::errors;
use super::state::AppState;
use crate::proto::v1 as pb;
use crate::proto::v1::lexicons_server::Lexicons;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct LexiconsService {
    pub state: Arc<AppState>,
}

#[tonic::async_trait]
impl Lexicons for LexiconsService {
    async fn list_lexicons(
        &self,
        _: Request<pb::ListLexiconsRequest>,
    ) -> Result<Response<pb::ListLexiconsResponse>, Status> {
        let lexicons = self
            .state
            .host
            .lexicons()
            .values()
            .map(|l| pb::LexiconInfo {
                name: l.name().to_string(),
                language: l.alphabet().name().to_string(),
                words: l.word_count() as u32,
                nodes: l.dawg().node_count(),
                edges: l.dawg().edge_count(),
                bytes: l.dawg().packed_bytes() as u64,
                checksum: format!("{:016x}", l.checksum()),
            })
            .collect();
        Ok(Response::new(pb::ListLexiconsResponse { lexicons }))
    }

    async fn judge_words(
        &self,
        request: Request<pb::JudgeWordsRequest>,
    ) -> Result<Response<pb::JudgeWordsResponse>, Status> {
        let req = request.into_inner();
        let lexicon = self.state.lexicon(&req.lexicon)?;
        if req.words.is_empty() {
            return Err(errors::bad_field("words", "at least one word"));
        }
        let mut verdicts = Vec::with_capacity(req.words.len());
        for (i, w) in req.words.iter().enumerate() {
            let valid = lexicon.contains_str(w).map_err(|e| errors::alphabet(&format!("words[{i}]"), e))?;
            verdicts.push(pb::WordVerdict { word: w.clone(), valid });
        }
        let acceptable = verdicts.iter().all(|v| v.valid);
        Ok(Response::new(pb::JudgeWordsResponse {
            acceptable,
            words: if req.per_word { verdicts } else { vec![] },
        }))
    }
}
