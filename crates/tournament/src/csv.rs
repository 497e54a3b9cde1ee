//! CSV as every file the server writes it (a division's rated games and players, its
//! statistics, the event's log, ExportResults): a field quoted only when it must be.

/// A CSV field: quoted when it holds a comma, a quote or a line break.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A CSV line of `cells`, each quoted when it must be, ended by a line break.
pub fn line(cells: &[String]) -> String {
    let mut line = cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_quoted_only_when_it_must_be() {
        assert_eq!(field("Ann"), "Ann");
        assert_eq!(field("Smith, Ann"), "\"Smith, Ann\"");
        assert_eq!(field("the \"Ace\""), "\"the \"\"Ace\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(line(&["1".into(), "a,b".into()]), "1,\"a,b\"\n");
    }
}
