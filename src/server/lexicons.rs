//! The `Lexicons` service: which word lists are loaded, and word judgements.

use super::state::AppState;
use super::{convert, errors};
use crate::lexicon::study::{self, Order, Side};
use crate::proto::v1 as pb;
use crate::rules::{Ruleset, RulesetKind};
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

/// FindWords's list when the request names none, and the most it may ask for; words a message.
const DEFAULT_WORDS: u32 = 100;
const MAX_WORDS: u32 = 10_000;
const BATCH: usize = 500;

type WordStream = Pin<Box<dyn Stream<Item = Result<pb::FindWordsResponse, Status>> + Send>>;

pub struct LexiconsService {
    pub(crate) state: Arc<AppState>,
}

#[tonic::async_trait]
impl crate::proto::v1::lexicons_service_server::LexiconsService for LexiconsService {
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
                rulesets: RulesetKind::all()
                    .into_iter()
                    .filter(|k| k.alphabet() == l.alphabet())
                    .map(|k| k.name().to_string())
                    .collect(),
            })
            .collect();
        Ok(Response::new(pb::ListLexiconsResponse { lexicons }))
    }

    async fn list_rulesets(
        &self,
        _: Request<pb::ListRulesetsRequest>,
    ) -> Result<Response<pb::ListRulesetsResponse>, Status> {
        let rulesets = RulesetKind::all().into_iter().map(ruleset_info).collect();
        Ok(Response::new(pb::ListRulesetsResponse { rulesets }))
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

    type FindWordsStream = WordStream;

    async fn find_words(
        &self,
        request: Request<pb::FindWordsRequest>,
    ) -> Result<Response<WordStream>, Status> {
        let req = request.into_inner();
        let name = if req.lexicon.is_empty() { "en" } else { req.lexicon.as_str() };
        let lexicon = self.state.lexicon(name)?;
        let alphabet = lexicon.alphabet();
        let limit = convert::page_size(req.limit, DEFAULT_WORDS, MAX_WORDS) as usize;
        let order = match pb::WordOrder::try_from(req.order) {
            Ok(pb::WordOrder::Unspecified | pb::WordOrder::Length) => Order::Length,
            Ok(pb::WordOrder::Alphabet) => Order::Alphabet,
            Ok(pb::WordOrder::Probability) => Order::Probability,
            Err(_) => return Err(errors::bad_field("order", format!("unknown order {}", req.order))),
        };
        let (kind, text) = match &req.query {
            Some(pb::find_words_request::Query::Anagram(t)) => ("anagram", t),
            Some(pb::find_words_request::Query::Pattern(t)) => ("pattern", t),
            Some(pb::find_words_request::Query::Hooks(t)) => ("hooks", t),
            None => return Err(errors::bad_field("query", "one of anagram, pattern or hooks")),
        };
        let query = study::read_query(kind, text, req.min_length as usize, alphabet)
            .map_err(|e| errors::bad_field(kind, e.to_string()))?;
        // The probabilities are of the bag of the first ruleset that plays in this alphabet.
        let kind = RulesetKind::for_alphabet(alphabet);
        let answers = self
            .state
            .host
            .think(move || study::find(lexicon.dawg(), &Ruleset::new(kind), &query, order, limit))
            .await
            .ok_or_else(|| errors::internal("the word search failed"))?;
        let words: Vec<pb::FoundWord> = answers
            .words
            .iter()
            .map(|a| {
                let (hook, hook_letter) = match a.hook {
                    Some((side, x)) => (
                        if side == Side::Front { "front" } else { "back" }.to_string(),
                        alphabet.label(x).to_string(),
                    ),
                    None => (String::new(), String::new()),
                };
                pb::FoundWord {
                    word: alphabet.word_string(&a.word),
                    with_blanks: study::with_blanks(a, alphabet),
                    length: a.word.len() as u32,
                    probability: a.probability,
                    hook,
                    hook_letter,
                }
            })
            .collect();
        let mut updates: Vec<Result<pb::FindWordsResponse, Status>> = words
            .chunks(BATCH)
            .map(|batch| Ok(pb::FindWordsResponse { words: batch.to_vec(), ..Default::default() }))
            .collect();
        updates.push(Ok(pb::FindWordsResponse {
            words: Vec::new(),
            done: true,
            total: answers.total as u32,
            complete: answers.complete,
            valid: answers.valid,
        }));
        Ok(Response::new(Box::pin(tokio_stream::iter(updates))))
    }
}

/// What a ruleset is, as ListRulesets says it.
fn ruleset_info(kind: RulesetKind) -> pb::RulesetInfo {
    let d = kind.definition();
    let a = d.alphabet;
    pb::RulesetInfo {
        name: d.name.clone(),
        aliases: d.aliases.clone(),
        ruleset: super::convert::ruleset_to(kind) as i32,
        alphabet: a.name().to_string(),
        tiles: a
            .specs()
            .iter()
            .enumerate()
            .map(|(l, spec)| pb::TileInfo {
                label: a.label(l as u8).to_string(),
                blank_label: a.blank_label(l as u8).to_string(),
                count: d.counts[l] as u32,
                value: d.values[l],
                vowel: spec.vowel,
                aliases: spec.aliases.clone(),
            })
            .collect(),
        blanks: d.blanks as u32,
        rack_size: d.rack_size as u32,
        bingo_bonus: d.bingo_bonus,
        board_size: d.size as u32,
        premiums: d.premium_rows(),
        start_row: d.start.0 as u32,
        start_col: d.start.1 as u32,
        default_lexicon: d.default_lexicon.clone(),
        blank_scores_letter: d.options.blank_value == crate::rules::BlankValue::LetterValue,
        no_repeated_words: d.options.no_repeated_words,
        scoreless_turn_limit: d.options.scoreless_turn_limit.turns(2),
        exchange_limit: d.options.exchange_limit,
        source: d.source.clone(),
        leaves: if d.leaves.is_some() { "learned" } else { "fallback" }.to_string(),
    }
}
