//! Draws from a division's seed: the same seed, round and purpose give the same draw on every
//! replica and after every restart.

/// SplitMix64: a small, well-mixed generator; the draws here need reproducibility, not secrecy.
pub(crate) struct Draw(u64);

impl Draw {
    /// A stream for one purpose (`what`) of one round.
    pub(crate) fn new(seed: u64, round: usize, what: u64) -> Draw {
        let mut d = Draw(
            seed ^ (round as u64).wrapping_mul(0xA24B_AED4_963E_E407)
                ^ what.wrapping_mul(0x9FB2_1C65_1E98_DF25),
        );
        d.next();
        d
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }

    /// Fisher–Yates.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}
