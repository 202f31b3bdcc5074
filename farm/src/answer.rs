//! What every call is answered: a text drawn from the prompt alone, so that a consumer can
//! check it received each answer whole and once, whichever provider, attempt or replica
//! served it.

/// Words the answers are made of.
const WORDS: [&str; 32] = [
    "the", "agent", "reads", "a", "file", "and", "writes", "its", "plan", "before", "calling",
    "tools", "with", "care", "then", "checks", "each", "result", "against", "what", "the", "user",
    "asked", "for", "so", "that", "nothing", "is", "lost", "or", "repeated", "twice",
];

/// A 64-bit FNV-1a hash: stable across runs, machines and versions of Rust.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The answer to `prompt`: 12 to 60 words, each a token, the first capitalised and the last
/// followed by a full stop. The same prompt always gets the same answer.
pub fn answer(prompt: &str) -> String {
    pieces(prompt).concat()
}

/// The answer to `prompt` as the deltas a stream sends: one word each, with the space
/// before it.
pub fn pieces(prompt: &str) -> Vec<String> {
    let mut rng = crate::schedule::Rng::new(hash(prompt));
    let words = 12 + rng.below(49) as usize;
    (0..words)
        .map(|i| {
            let word = WORDS[rng.below(WORDS.len() as u64) as usize];
            let mut piece = if i == 0 {
                let mut chars = word.chars();
                chars.next().map_or(String::new(), |c| {
                    c.to_ascii_uppercase().to_string() + chars.as_str()
                })
            } else {
                format!(" {word}")
            };
            if i + 1 == words {
                piece.push('.');
            }
            piece
        })
        .collect()
}

/// Tokens in `text` as the farm counts them: a token every four bytes, at least one.
pub fn tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_depends_on_its_prompt_only() {
        assert_eq!(answer("hello"), answer("hello"));
        assert_ne!(answer("hello"), answer("hello!"));
        let pieces = pieces("hello");
        assert!((12..=60).contains(&pieces.len()));
        assert!(answer("hello").ends_with('.'));
        assert!(answer("hello").starts_with(|c: char| c.is_ascii_uppercase()));
    }
}
