//! LexiconsService.FindWords over the wire: anagrams with blanks, patterns and hooks in every
//! lexicon, sorted and limited, each word with its probability; bad queries are refused.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

async fn find(
    l: &mut pb::lexicons_service_client::LexiconsServiceClient<tonic::transport::Channel>,
    request: pb::FindWordsRequest,
) -> Result<(Vec<pb::FoundWord>, pb::FindWordsResponse), tonic::Status> {
    let mut stream = l.find_words(request).await?.into_inner();
    let mut words = Vec::new();
    let mut last = None;
    while let Some(u) = stream.message().await? {
        words.extend(u.words.clone());
        last = Some(u);
    }
    Ok((words, last.expect("a last message")))
}

fn query(lexicon: &str, q: pb::find_words_request::Query) -> pb::FindWordsRequest {
    pb::FindWordsRequest { lexicon: lexicon.into(), query: Some(q), ..Default::default() }
}

#[tokio::test]
async fn anagrams_patterns_and_hooks_in_every_lexicon() {
    let srv = start().await;
    let mut l = srv.lexicons().await;
    use pb::find_words_request::Query;
    let (words, last) = find(&mut l, query("en", Query::Anagram("AEINRST".into()))).await.unwrap();
    assert!(last.done && last.complete);
    assert_eq!(last.total as usize, words.len());
    assert!(words.iter().any(|w| w.word == "RETAINS"), "{words:?}");
    assert!(words.iter().all(|w| w.length == 7 && w.probability > 0.0));
    // A blank: the letter it stands for in lower case.
    let (words, _) = find(&mut l, query("en", Query::Anagram("QI?".into()))).await.unwrap();
    assert!(
        words.iter().all(|w| w.with_blanks.chars().filter(|c| c.is_lowercase()).count() == 1),
        "{words:?}"
    );
    // Shorter words too, likeliest first, the first ten.
    let mut r = query("en", Query::Anagram("RETAINS".into()));
    r.min_length = 2;
    r.order = pb::WordOrder::Probability as i32;
    r.limit = 10;
    let (words, last) = find(&mut l, r).await.unwrap();
    assert_eq!(words.len(), 10);
    assert!(last.total > 10);
    for pair in words.windows(2) {
        assert!(pair[0].probability >= pair[1].probability);
    }
    let (words, _) = find(&mut l, query("en", Query::Pattern("*Q*".into()))).await.unwrap();
    assert!(!words.is_empty() && words.iter().all(|w| w.word.contains('Q')));
    let (words, last) = find(&mut l, query("en", Query::Hooks("ARE".into()))).await.unwrap();
    assert!(last.valid);
    assert!(words.iter().any(|w| w.word == "CARE" && w.hook == "front" && w.hook_letter == "C"), "{words:?}");
    assert!(words.iter().any(|w| w.word == "AREA" && w.hook == "back"), "{words:?}");
    for lexicon in ["ru", "erudit"] {
        let (words, _) = find(&mut l, query(lexicon, Query::Pattern("К?Т".into()))).await.unwrap();
        assert!(!words.is_empty(), "{lexicon}");
        assert!(words.iter().all(|w| w.word.chars().count() == 3 && w.word.starts_with('К')));
    }
}

#[tokio::test]
async fn bad_queries_are_refused() {
    let srv = start().await;
    let mut l = srv.lexicons().await;
    use pb::find_words_request::Query;
    let bad = [
        query("en", Query::Anagram(String::new())),
        query("en", Query::Anagram("A".repeat(50))),
        query("en", Query::Pattern("ABCDEFGHIJKLMNOPQRSTUV".into())),
        query("en", Query::Pattern("C[AT".into())),
        query("en", Query::Hooks("WÖRD".into())),
        query("xx", Query::Hooks("WORD".into())),
        pb::FindWordsRequest { lexicon: "en".into(), ..Default::default() },
    ];
    for r in bad {
        assert_eq!(code(find(&mut l, r.clone()).await), Code::InvalidArgument, "{r:?}");
    }
    let e = find(&mut l, query("en", Query::Pattern("ABCDEFGHIJKLMNOPQRSTUV".into()))).await.unwrap_err();
    assert_eq!(e.message(), "pattern: 22 letters: a word on the largest board has at most 21");
    // A pattern as long as the largest board is asked, and finds nothing in a 15×15 list.
    let (words, last) = find(&mut l, query("en", Query::Pattern("?".repeat(16)))).await.unwrap();
    assert_eq!((words.len(), last.total, last.complete), (0, 0, true));
    // A limit above the most sent (10000) is served as the most (AIP-158), not refused.
    let many = pb::FindWordsRequest { limit: 100_000, ..query("en", Query::Pattern("?????".into())) };
    let (words, last) = find(&mut l, many).await.unwrap();
    assert_eq!(words.len(), 10_000);
    assert!(last.total as usize > 10_000, "{}", last.total);
}
