//! What a text is read as (JSON or YAML, its line ending), decided by the whole input
//! it comes from, and where it sits in that input.

/// What a text is read as, decided by the whole input it comes from (a chunk of an
/// input is read as the whole would be), and where it sits in that input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    json: bool,
    eol: &'static str,
    line_base: usize,
}

impl Context {
    /// The context of `whole`, the entire input: JSON when it starts with `{` or `[`
    /// (as kubectl decides), and its first line ending.
    pub fn of(whole: &str) -> Context {
        let b = whole.as_bytes();
        let eol = match b.iter().position(|&c| c == b'\n' || c == b'\r') {
            Some(i) if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') => "\r\n",
            Some(i) if b[i] == b'\r' => "\r",
            _ => "\n",
        };
        let json = matches!(
            whole
                .trim_start_matches(|c: char| c.is_whitespace())
                .as_bytes()
                .first(),
            Some(b'{' | b'[')
        );
        Context {
            json,
            eol,
            line_base: 0,
        }
    }

    /// The same context for a part of the input that starts after `lines` lines of it:
    /// messages then give the whole input's line numbers.
    pub fn at_line(self, lines: usize) -> Context {
        Context {
            line_base: lines,
            ..self
        }
    }

    /// The whole input is JSON: kubectl reads it with its JSON decoder, where NEL, LS
    /// and PS are characters, not line breaks, and `\/` and surrogate-pair escapes are
    /// read.
    pub fn json(self) -> bool {
        self.json
    }

    /// The whole input's first line ending.
    pub fn eol(self) -> &'static str {
        self.eol
    }

    /// Lines of the whole input before this text ([`Context::at_line`]).
    pub fn line_base(self) -> usize {
        self.line_base
    }
}
