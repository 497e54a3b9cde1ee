//! What a player's name may be: one that a `.t` file holds and reads back as itself (the rule
//! the division applies to a newcomer and the file applies to every line, in one place).

/// Why a name cannot stand in a `.t` file, if it cannot: TSH reads a line's name up to its
/// first word that starts with a digit (the rating; `1.5` and `1+2` too), a `;` ends the field,
/// and a line starting `#` is a comment.
pub fn name_problem(name: &str) -> Option<&'static str> {
    let starts_number = |w: &str| {
        let mut c = w.chars();
        match c.next() {
            Some(d) if d.is_ascii_digit() => true,
            Some('+' | '-') => c.next().is_some_and(|d| d.is_ascii_digit()),
            _ => false,
        }
    };
    if name.trim().is_empty() {
        Some("a player has a name")
    } else if name.contains(';') {
        Some("no ';' in a name (TSH's field separator)")
    } else if name.trim_start().starts_with('#') {
        Some("a name does not start with '#' (TSH reads the line as a comment)")
    } else if name.chars().any(char::is_control) || name.starts_with('\u{feff}') {
        Some("no control characters in a name")
    } else if name.split_whitespace().any(starts_number) {
        Some("no word of a name starts with a digit (TSH reads it as the rating)")
    } else {
        None
    }
}
