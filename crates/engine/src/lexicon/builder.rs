//! One-pass construction of the minimal DAWG from sorted words, by incremental minimization
//! (Daciuk, Mihov, Watson & Watson 2000, the sorted-input algorithm).
//!
//! Only the path of the last word inserted is mutable; every node off that path is already
//! minimized, frozen into the packed edge array and held in the register (signature → node).
//! When the next word diverges at depth `p`, the path below `p` is frozen bottom-up: a node whose
//! packed edges (letters, terminal bits, targets) equal a registered node's is replaced by it.
//! Children are frozen before their parents; once done, the nodes are laid out again
//! breadth-first from the root, every edge pointing to a higher index.

use super::dawg::{self, Dawg, LEAF, MAX_EDGES, Node};
use crate::alphabet::Letter;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Why a word could not be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("words are not in strictly increasing order at word {index}")]
    Unsorted { index: u64 },
    #[error("an empty word at word {index}")]
    Empty { index: u64 },
    #[error("the DAWG outgrew the 24-bit edge address space")]
    TooLarge,
}

/// FxHash-style hasher: the register's keys are short `u32` slices and hashing dominates.
#[derive(Default)]
struct EdgeHasher(u64);

impl Hasher for EdgeHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// Incremental builder; feed words in strictly increasing letter order, then [`finish`](Self::finish).
pub struct DawgBuilder {
    letters: usize,
    edges: Vec<u32>,
    register: HashMap<Box<[u32]>, Node, BuildHasherDefault<EdgeHasher>>,
    /// Unfrozen nodes along the last word: `path[d]` is the node at depth `d`; the last edge of
    /// `path[d]` leads to `path[d + 1]` (its target is filled in when that node is frozen).
    path: Vec<Vec<u32>>,
    previous: Vec<Letter>,
    words: u64,
    too_large: bool,
}

impl DawgBuilder {
    /// A builder for an alphabet of `letters` letters.
    pub fn new(letters: usize) -> DawgBuilder {
        DawgBuilder {
            letters,
            edges: vec![0], // the sentinel: target 0 means "no edges"
            register: HashMap::default(),
            path: vec![Vec::new()],
            previous: Vec::new(),
            words: 0,
            too_large: false,
        }
    }

    /// Add the next word; it must sort strictly after the previous one.
    pub fn insert(&mut self, word: &[Letter]) -> Result<(), BuildError> {
        if word.is_empty() {
            return Err(BuildError::Empty { index: self.words });
        }
        if self.words > 0 && word <= self.previous.as_slice() {
            return Err(BuildError::Unsorted { index: self.words });
        }
        let common = word.iter().zip(&self.previous).take_while(|(a, b)| a == b).count();
        self.freeze_below(common);
        for &l in &word[common..] {
            let top = self.path.last_mut().expect("path always holds the root");
            top.push(dawg::pack(l, false, false, LEAF));
            self.path.push(Vec::new());
        }
        let depth = self.path.len() - 2;
        let last = self.path[depth].last_mut().expect("a word adds at least one edge");
        *last = dawg::set_terminal(*last);
        self.previous.clear();
        self.previous.extend_from_slice(word);
        self.words += 1;
        if self.too_large { Err(BuildError::TooLarge) } else { Ok(()) }
    }

    /// Freeze every pending node deeper than `depth`.
    fn freeze_below(&mut self, depth: usize) {
        while self.path.len() > depth + 1 {
            let node = self.path.pop().expect("len > depth + 1 >= 1");
            let id = self.freeze(node);
            let parent = self.path.last_mut().expect("depth >= 0 keeps the root");
            let last = parent.last_mut().expect("a parent has the edge to its child");
            *last = dawg::with_target(*last, id);
        }
    }

    /// The registered twin of `node`, or `node` appended to the edge array.
    fn freeze(&mut self, mut node: Vec<u32>) -> Node {
        let Some(last) = node.last_mut() else { return LEAF };
        *last = dawg::set_last(*last);
        if let Some(&id) = self.register.get(node.as_slice()) {
            return id;
        }
        if self.edges.len() + node.len() > MAX_EDGES {
            self.too_large = true;
            return LEAF;
        }
        let id = self.edges.len() as Node;
        self.edges.extend_from_slice(&node);
        self.register.insert(node.into_boxed_slice(), id);
        id
    }

    /// Freeze what remains and return the DAWG.
    pub fn finish(mut self) -> Result<Dawg, BuildError> {
        self.freeze_below(0);
        let root_edges = self.path.pop().expect("the root is always pending");
        let root = self.freeze(root_edges);
        if self.too_large {
            return Err(BuildError::TooLarge);
        }
        let words = self.words;
        let (edges, root) = breadth_first(&self.edges, root);
        Ok(Dawg::from_parts(edges, root, self.letters, Some(words))
            .expect("the builder only produces well-formed DAWGs"))
    }
}

/// Lay the nodes out again in a breadth-first topological order from the root (Kahn's
/// algorithm with a FIFO queue): the root first, then its children, and so on, every edge
/// pointing forward. Construction freezes children before parents, which scatters the nodes
/// near the root across the array; every search starts there, so gathering them keeps the hot
/// part of the DAWG in a few cache lines.
fn breadth_first(edges: &[u32], root: Node) -> (Vec<u32>, Node) {
    if root == LEAF {
        return (edges.to_vec(), root);
    }
    let node_edges = |n: Node| {
        let mut i = n as usize;
        let mut out = Vec::new();
        loop {
            out.push(edges[i]);
            if dawg::is_last(edges[i]) {
                return out;
            }
            i += 1;
        }
    };
    let mut indegree: HashMap<Node, u32> = HashMap::new();
    let mut i = 1;
    while i < edges.len() {
        let target = dawg::target(edges[i]);
        if target != LEAF {
            *indegree.entry(target).or_default() += 1;
        }
        i += 1;
    }
    let mut order = Vec::new();
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(n) = queue.pop_front() {
        order.push(n);
        for e in node_edges(n) {
            let t = dawg::target(e);
            if t != LEAF {
                let d = indegree.get_mut(&t).expect("every target was counted");
                *d -= 1;
                if *d == 0 {
                    queue.push_back(t);
                }
            }
        }
    }
    let mut new_index: HashMap<Node, Node> = HashMap::with_capacity(order.len());
    let mut next = 1u32;
    for &n in &order {
        new_index.insert(n, next);
        next += node_edges(n).len() as u32;
    }
    let mut out = Vec::with_capacity(edges.len());
    out.push(0);
    for &n in &order {
        for e in node_edges(n) {
            let t = dawg::target(e);
            out.push(if t == LEAF { e } else { dawg::with_target(e, new_index[&t]) });
        }
    }
    (out, new_index[&root])
}

/// Build a DAWG from words that are already sorted and free of duplicates.
pub fn build_sorted<'a>(
    letters: usize,
    words: impl IntoIterator<Item = &'a [Letter]>,
) -> Result<Dawg, BuildError> {
    let mut b = DawgBuilder::new(letters);
    for w in words {
        b.insert(w)?;
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<Letter> {
        s.bytes().map(|b| b - b'a').collect()
    }

    #[test]
    fn tiny_lexicon_shares_suffixes() {
        let words: Vec<Vec<Letter>> = ["cat", "cats", "dog", "dogs"].iter().map(|s| w(s)).collect();
        let d = build_sorted(26, words.iter().map(|v| v.as_slice())).unwrap();
        assert_eq!(d.word_count(), 4);
        // root {c,d}; "a" node; "o" node; {t}; {g}; shared {s}: 6 nodes. The t-node and g-node
        // differ by letter; the s-node after them is shared.
        assert_eq!(d.node_count(), 6);
        for x in &words {
            assert!(d.contains(x));
        }
        for x in ["ca", "do", "catss", "cog", "c", ""] {
            assert!(!d.contains(&w(x)), "{x}");
        }
    }

    #[test]
    fn rejects_unsorted_and_duplicate_input() {
        let mut b = DawgBuilder::new(26);
        b.insert(&w("b")).unwrap();
        assert_eq!(b.insert(&w("a")), Err(BuildError::Unsorted { index: 1 }));
        assert_eq!(b.insert(&w("b")), Err(BuildError::Unsorted { index: 1 }));
        assert_eq!(b.insert(&[]), Err(BuildError::Empty { index: 1 }));
    }

    #[test]
    fn empty_lexicon() {
        let d = build_sorted(26, std::iter::empty()).unwrap();
        assert_eq!(d.word_count(), 0);
        assert_eq!(d.node_count(), 0);
        assert!(!d.contains(&w("a")));
    }
}
