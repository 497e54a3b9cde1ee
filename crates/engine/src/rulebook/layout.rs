//! Boards a ruleset file names rather than draws: the shipped layouts (`layout standard15`,
//! drawn as a ruleset file's board), by name. Reading them, and MAGPIE's layout files (the start
//! square, then a row of premium characters a line), is the builder's (`Builder::named_layout`,
//! `Builder::read_layout`).

/// The shipped layouts, by the name a `layout` line gives.
pub(super) const SHIPPED_LAYOUTS: &[(&str, &str)] =
    &[("standard15", include_str!("../../data/layouts/standard15.txt"))];
