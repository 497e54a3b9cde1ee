//! A text's script (Latin, Cyrillic) and what each script means when nothing else says which
//! alphabet or ruleset a text is in: the one place that decides "Cyrillic means Russian".

use crate::alphabet::Alphabet;
use crate::rules::RulesetKind;

/// The script a text is written in, as far as dawgref tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Script {
    /// Everything not Cyrillic: A–Z with its accented letters, and digits and marks, which
    /// decide nothing.
    Latin,
    /// The Cyrillic block, U+0400–U+04FF.
    Cyrillic,
}

impl Script {
    /// A character's script.
    pub fn of_char(c: char) -> Script {
        if ('\u{0400}'..='\u{04FF}').contains(&c) { Script::Cyrillic } else { Script::Latin }
    }

    /// A text's script: Cyrillic when any of its characters is, else Latin.
    pub fn of_text(text: &str) -> Script {
        if text.chars().any(|c| Script::of_char(c) == Script::Cyrillic) {
            Script::Cyrillic
        } else {
            Script::Latin
        }
    }

    /// The alphabet a text in this script is read in when nothing says: Russian Scrabble's for
    /// Cyrillic (the Russian ruleset is the first in Cyrillic; Эрудит names itself), English's for
    /// Latin.
    pub fn alphabet(self) -> Alphabet {
        match self {
            Script::Latin => Alphabet::english(),
            Script::Cyrillic => Alphabet::russian(),
        }
    }

    /// The ruleset a text in this script is played under when nothing says: the first in its
    /// alphabet (Russian for Cyrillic, English for Latin).
    pub fn ruleset(self) -> RulesetKind {
        RulesetKind::for_alphabet(self.alphabet())
    }
}

impl Alphabet {
    /// The script its letters are written in: Cyrillic when any letter is.
    pub fn script(self) -> Script {
        let cyrillic = self.specs().iter().any(|s| Script::of_text(&s.label) == Script::Cyrillic);
        if cyrillic { Script::Cyrillic } else { Script::Latin }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cyrillic_when_any_character_is() {
        assert_eq!(Script::of_text("2 ёж!"), Script::Cyrillic);
        assert_eq!(Script::of_text("QUIZ ÑU"), Script::Latin);
        assert_eq!(Script::of_text(""), Script::Latin);
    }

    /// Each script's alphabet is written in it, and its ruleset plays in that alphabet.
    #[test]
    fn a_script_means_an_alphabet_of_its_own_letters() {
        for script in [Script::Latin, Script::Cyrillic] {
            assert_eq!(script.alphabet().script(), script);
            assert_eq!(script.ruleset().alphabet(), script.alphabet());
        }
        assert_eq!(Script::Cyrillic.ruleset(), RulesetKind::russian());
        assert_eq!(Script::Latin.ruleset(), RulesetKind::english());
        assert_eq!(Alphabet::erudit().script(), Script::Cyrillic);
    }
}
