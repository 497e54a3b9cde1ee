//! The packed DAWG (AJ88 §3.4.3): one array of `u32` edges, a node being the index of its
//! first edge, a node's edges contiguous and sorted by letter, the last one flagged.
//!
//! Edge layout: bits 0–5 letter index, bit 6 *terminal* (the path through this edge spells a
//! word), bit 7 *last edge of its node*, bits 8–31 target node (`0` = no outgoing edges).
//! Index 0 of the array is a sentinel, never a node, so that target `0` can mean "leaf".
//!
//! Invariant (checked by [`Dawg::from_parts`]): every target is a node start strictly above the
//! node holding the edge, so the graph is acyclic and every traversal terminates. Nodes are laid
//! out breadth-first from the root (a topological order, see the builder). Beside the edge
//! array the DAWG keeps, for each node, the bitset of its letters: the move generator intersects
//! it with the rack and the cross-set instead of walking edges, and `child` becomes a popcount.
//! The generator walks [`Step`]s: each edge beside its target's letter set, so an arc costs one
//! load.

use crate::alphabet::{Letter, MAX_LETTERS};

/// A node: the index of its first edge (`0` for a node without edges).
pub type Node = u32;

/// The node with no outgoing edges.
pub const LEAF: Node = 0;

const LETTER_MASK: u32 = 0x3f;
const TERMINAL_BIT: u32 = 1 << 6;
const LAST_BIT: u32 = 1 << 7;
const TARGET_SHIFT: u32 = 8;
/// Largest edge array the 24-bit target field can address.
pub const MAX_EDGES: usize = 1 << 24;

/// One decoded edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub letter: Letter,
    /// The word spelled up to and including this edge is in the lexicon.
    pub terminal: bool,
    /// The node the edge leads to.
    pub target: Node,
}

/// Pack one edge.
#[inline]
pub(crate) const fn pack(letter: Letter, terminal: bool, last: bool, target: Node) -> u32 {
    (letter as u32)
        | if terminal { TERMINAL_BIT } else { 0 }
        | if last { LAST_BIT } else { 0 }
        | (target << TARGET_SHIFT)
}

#[inline]
const fn unpack(e: u32) -> Edge {
    Edge { letter: (e & LETTER_MASK) as Letter, terminal: e & TERMINAL_BIT != 0, target: e >> TARGET_SHIFT }
}

#[inline]
pub(crate) const fn is_last(e: u32) -> bool {
    e & LAST_BIT != 0
}

#[inline]
pub(crate) const fn target(e: u32) -> Node {
    e >> TARGET_SHIFT
}

pub(crate) const fn set_last(e: u32) -> u32 {
    e | LAST_BIT
}

pub(crate) const fn set_terminal(e: u32) -> u32 {
    e | TERMINAL_BIT
}

pub(crate) const fn with_target(e: u32, target: Node) -> u32 {
    (e & 0xff) | (target << TARGET_SHIFT)
}

/// Why an edge array is not a well-formed DAWG.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructureError {
    #[error("edge array does not start with the zero sentinel")]
    NoSentinel,
    #[error("edge array has {0} edges, more than the 24-bit target field addresses")]
    TooLarge(usize),
    #[error("edge {edge}: letter {letter} is outside the {letters}-letter alphabet")]
    LetterOutOfRange { edge: usize, letter: u8, letters: usize },
    #[error("edge {edge}: letters of a node are not strictly increasing")]
    Unsorted { edge: usize },
    #[error("edge {edge}: target {target} is not a node below this one")]
    BadTarget { edge: usize, target: u32 },
    #[error("the last node is not closed by a last-edge flag")]
    Unterminated,
    #[error("root {0} is not a node")]
    BadRoot(u32),
    #[error("the graph spells {counted} words, the header says {declared}")]
    WordCount { counted: u64, declared: u64 },
}

/// An edge as the move generator walks it: the step beside the letter set of the node it leads
/// to, so one load yields both the step and the next node's candidates. Packed in one word
/// (the letter set in the low [`MAX_LETTERS`] bits, then the terminal flag, then the target):
/// this array is the generator's working set, and half the bytes is half the cache it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Step(u64);

// The target field holds every edge index.
const _: () = assert!(Step::TARGET_SHIFT + MAX_EDGES.trailing_zeros() <= u64::BITS);

impl Step {
    const TERMINAL: u64 = 1 << MAX_LETTERS;
    const TARGET_SHIFT: u32 = MAX_LETTERS as u32 + 1;

    fn new(set: u64, target: Node, terminal: bool) -> Step {
        debug_assert!(set < Step::TERMINAL && (target as usize) < MAX_EDGES);
        Step(set | if terminal { Step::TERMINAL } else { 0 } | (target as u64) << Step::TARGET_SHIFT)
    }

    /// Letters on the target node's edges.
    #[inline]
    pub fn set(self) -> u64 {
        self.0 & (Step::TERMINAL - 1)
    }

    /// The target node.
    #[inline]
    pub fn target(self) -> Node {
        (self.0 >> Step::TARGET_SHIFT) as Node
    }

    /// The path through this edge spells a word.
    #[inline]
    pub fn terminal(self) -> bool {
        self.0 & Step::TERMINAL != 0
    }
}

/// A minimized, packed DAWG. Cheap to share behind an `Arc`; immutable once built.
#[derive(Clone, Debug)]
pub struct Dawg {
    edges: Vec<u32>,
    /// `steps[i]` is edge `i` with its target's letter set (the move generator's view).
    steps: Vec<Step>,
    /// Letter bitset of each node, indexed by node (entries at non-node indexes are 0).
    letter_sets: Vec<u64>,
    root: Node,
    nodes: u32,
    words: u64,
    /// The multisets of the long words, built on first use (best-first search's bingo test).
    anagrams: std::sync::OnceLock<super::Anagrams>,
    /// Per node, every letter on some path below it, built on first use (word study's
    /// patterns prune by it).
    below: std::sync::OnceLock<Vec<u64>>,
}

impl Dawg {
    /// Check an edge array and index it. `letters` is the alphabet size (a letter at or past
    /// it, or past [`MAX_LETTERS`], is refused); `declared_words`, when given, must equal the
    /// number of words the graph spells.
    pub fn from_parts(
        edges: Vec<u32>,
        root: Node,
        letters: usize,
        declared_words: Option<u64>,
    ) -> Result<Dawg, StructureError> {
        if edges.first() != Some(&0) {
            // Index 0 is never read as an edge, but a stray target there would be followed
            // when the step table is built.
            return Err(StructureError::NoSentinel);
        }
        if edges.len() > MAX_EDGES {
            return Err(StructureError::TooLarge(edges.len()));
        }
        // A step holds a letter set of MAX_LETTERS bits, as many as the largest alphabet.
        let letters = letters.min(MAX_LETTERS);
        // Pass 1: node starts, letter order and range, letter sets.
        let mut letter_sets = vec![0u64; edges.len()];
        let mut is_node = vec![false; edges.len()];
        let mut starts = Vec::new();
        let mut start = 1usize;
        let mut prev_letter: Option<u8> = None;
        for i in 1..edges.len() {
            if i == start {
                is_node[i] = true;
                starts.push(i);
                prev_letter = None;
            }
            let e = unpack(edges[i]);
            if e.letter as usize >= letters {
                return Err(StructureError::LetterOutOfRange { edge: i, letter: e.letter, letters });
            }
            if prev_letter.is_some_and(|p| p >= e.letter) {
                return Err(StructureError::Unsorted { edge: i });
            }
            prev_letter = Some(e.letter);
            letter_sets[start] |= 1u64 << e.letter;
            if is_last(edges[i]) {
                start = i + 1;
            }
        }
        if start != edges.len() {
            return Err(StructureError::Unterminated);
        }
        let nodes = starts.len() as u32;
        // Pass 2, last node first: targets lie strictly above their node (so the graph is
        // acyclic), and words spelled from each node (saturating: a hostile file cannot overflow).
        let mut counts = vec![0u64; edges.len()];
        for (k, &node) in starts.iter().enumerate().rev() {
            let end = starts.get(k + 1).copied().unwrap_or(edges.len());
            let mut count = 0u64;
            for (i, &raw) in edges.iter().enumerate().take(end).skip(node) {
                let e = unpack(raw);
                let t = e.target as usize;
                if t != 0 && (t <= node || t >= edges.len() || !is_node[t]) {
                    return Err(StructureError::BadTarget { edge: i, target: e.target });
                }
                let below = if t == 0 { 0 } else { counts[t] };
                count = count.saturating_add(below).saturating_add(e.terminal as u64);
            }
            counts[node] = count;
        }
        let r = root as usize;
        if r != 0 && (r >= edges.len() || !is_node[r]) {
            return Err(StructureError::BadRoot(root));
        }
        let words = if r == 0 { 0 } else { counts[r] };
        if let Some(declared) = declared_words
            && declared != words
        {
            return Err(StructureError::WordCount { counted: words, declared });
        }
        let steps = edges
            .iter()
            .map(|&raw| {
                let e = unpack(raw);
                Step::new(letter_sets[e.target as usize], e.target, e.terminal)
            })
            .collect();
        Ok(Dawg {
            edges,
            steps,
            letter_sets,
            root,
            nodes,
            words,
            anagrams: std::sync::OnceLock::new(),
            below: std::sync::OnceLock::new(),
        })
    }

    /// The multisets of the words of [`super::MIN_INDEXED`] letters or more, indexed on the
    /// first call (tens of milliseconds for a full lexicon).
    pub fn anagrams(&self) -> &super::Anagrams {
        self.anagrams.get_or_init(|| super::Anagrams::build(self))
    }

    /// Every letter on some path from `node` on (0 for a leaf), as a bit set; indexed on the
    /// first call, one pass over the nodes from the last (each node's targets lie above it).
    pub fn letters_below(&self, node: Node) -> u64 {
        let below = self.below.get_or_init(|| {
            let mut below = vec![0u64; self.letter_sets.len()];
            for n in (1..self.letter_sets.len()).rev() {
                if self.letter_sets[n] == 0 {
                    continue;
                }
                below[n] =
                    self.edges(n as Node).fold(0, |set, e| set | 1 << e.letter | below[e.target as usize]);
            }
            below
        });
        below.get(node as usize).copied().unwrap_or(0)
    }

    /// The start node.
    #[inline]
    pub fn root(&self) -> Node {
        self.root
    }

    /// The packed edge array (index 0 is the sentinel).
    pub fn raw_edges(&self) -> &[u32] {
        &self.edges
    }

    /// Number of nodes with at least one edge.
    pub fn node_count(&self) -> u32 {
        self.nodes
    }

    /// Number of edges, not counting the sentinel.
    pub fn edge_count(&self) -> u32 {
        (self.edges.len() - 1) as u32
    }

    /// Number of words spelled.
    pub fn word_count(&self) -> u64 {
        self.words
    }

    /// Bytes of the packed edge array.
    pub fn packed_bytes(&self) -> usize {
        self.edges.len() * 4
    }

    /// Bitset of the letters on a node's edges (bit `l` for letter `l`).
    #[inline]
    pub fn letters(&self, node: Node) -> u64 {
        // LEAF's entry is 0: index 0 is the sentinel.
        self.letter_sets[node as usize]
    }

    /// The edge labelled `letter` out of `node`, if any. O(1): a popcount over the letter set.
    #[inline]
    pub fn child(&self, node: Node, letter: Letter) -> Option<Edge> {
        let set = self.letters(node);
        let bit = 1u64 << letter;
        if set & bit == 0 {
            return None;
        }
        let offset = (set & (bit - 1)).count_ones();
        Some(unpack(self.edges[(node + offset) as usize]))
    }

    /// The step along `letter` out of `node`, whose letter set `set` the caller already holds
    /// and knows contains `letter` (the move generator's hot path: one popcount, one load).
    #[inline]
    pub fn step(&self, node: Node, set: u64, letter: Letter) -> Step {
        debug_assert!(set >> letter & 1 == 1 && set == self.letters(node));
        let offset = (set & ((1u64 << letter) - 1)).count_ones();
        self.steps[(node + offset) as usize]
    }

    /// The edges out of `node`, in letter order.
    #[inline]
    pub fn edges(&self, node: Node) -> Edges<'_> {
        Edges { edges: &self.edges, next: if node == LEAF { None } else { Some(node) } }
    }

    /// Follow a sequence of letters from `node`; the last edge taken (its `terminal` says whether
    /// the path is a word), or `None` if the path leaves the DAWG or `word` is empty.
    #[inline]
    pub fn walk(&self, node: Node, word: &[Letter]) -> Option<Edge> {
        let mut edge = None;
        let mut n = node;
        for &l in word {
            let e = self.child(n, l)?;
            n = e.target;
            edge = Some(e);
        }
        edge
    }

    /// Whether `word` (letter indexes) is in the lexicon.
    pub fn contains(&self, word: &[Letter]) -> bool {
        self.walk(self.root, word).is_some_and(|e| e.terminal)
    }

    /// Every word, in letter order (for tests and tools; allocation per word).
    pub fn words(&self) -> Vec<Vec<Letter>> {
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        self.collect(self.root, &mut prefix, &mut out);
        out
    }

    fn collect(&self, node: Node, prefix: &mut Vec<Letter>, out: &mut Vec<Vec<Letter>>) {
        for e in self.edges(node) {
            prefix.push(e.letter);
            if e.terminal {
                out.push(prefix.clone());
            }
            self.collect(e.target, prefix, out);
            prefix.pop();
        }
    }
}

/// Iterator over a node's edges.
pub struct Edges<'a> {
    edges: &'a [u32],
    next: Option<Node>,
}

impl Iterator for Edges<'_> {
    type Item = Edge;
    #[inline]
    fn next(&mut self) -> Option<Edge> {
        let i = self.next?;
        let raw = self.edges[i as usize];
        self.next = if is_last(raw) { None } else { Some(i + 1) };
        Some(unpack(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_keeps_the_widest_letter_set_and_the_last_edge_index() {
        let set = (1u64 << MAX_LETTERS) - 1;
        let target = (MAX_EDGES - 1) as Node;
        for terminal in [false, true] {
            let s = Step::new(set, target, terminal);
            assert_eq!((s.set(), s.target(), s.terminal()), (set, target, terminal));
        }
        let s = Step::new(1 << 5, 7, false);
        assert_eq!((s.set(), s.target(), s.terminal()), (1 << 5, 7, false));
    }

    #[test]
    fn a_letter_past_the_widest_alphabet_is_refused_whatever_the_caller_says() {
        // One node with one edge, letter 40, a word on its own: a step could not hold its set.
        let edges = vec![0, pack(40, true, true, LEAF)];
        let err = Dawg::from_parts(edges, 1, 64, None).unwrap_err();
        assert!(
            matches!(err, StructureError::LetterOutOfRange { letter: 40, letters: MAX_LETTERS, .. }),
            "{err:?}"
        );
    }
}
