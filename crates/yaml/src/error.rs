//! Why a text was refused: a typed kind, and where (byte offset, line and column).

/// A limit on the work one text may take. A limit counts per text: the whole input read
/// as one text may reach one where its items read one by one do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`crate::limits::MAX_TEXT_BYTES`]: offsets are `u32`s.
    TextSize,
    /// [`crate::limits::MAX_ALIAS_EXPANSION`]: aliases (and merge keys) expand a document past it.
    AliasExpansion,
    /// [`crate::limits::MAX_DEPTH`]: collections nest deeper than this.
    Nesting,
}

/// What went wrong. Each kind is one of go-yaml's refusals (the same text is refused by
/// kubectl, kustomize and kpt), one of the reader's own checks (duplicate keys, as the
/// API server refuses them; aliases), or a work [`Limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A character YAML allows nowhere, not even in a comment: C0 controls other than
    /// tab, LF and CR, DEL, C1 controls other than NEL, U+FFFE, U+FFFF.
    ControlCharacter {
        /// The character's code point (never the text around it).
        code: u32,
    },
    /// A character that cannot start any token (a tab at the start of a block line, `@`,
    /// a backquote).
    UnexpectedCharacter,
    /// A tab in the indentation of a plain scalar's continuation line.
    TabInIndentation,
    /// A tab where a block scalar's indentation spaces are expected.
    TabInBlockScalarIndentation,
    /// `-` where a block sequence entry cannot start (after `key: ` on the same line).
    BlockEntryNotAllowed,
    /// `?` where a mapping key cannot start.
    KeyNotAllowed,
    /// `:` where a mapping value cannot start (`a: b: c`, a key longer than 1024
    /// characters or spread over lines).
    ValueNotAllowed,
    /// An implicit key at the indentation of its mapping with no `:` after it.
    MissingColon,
    /// `%` followed by something other than `YAML` or `TAG`.
    UnknownDirective,
    /// A `%YAML` or `%TAG` directive that is not well formed.
    MalformedDirective,
    /// `%YAML` with a version other than 1.1, which go-yaml refuses.
    IncompatibleVersion,
    /// A second `%YAML`, or a second `%TAG` for one handle, in a document's directives.
    DuplicateDirective,
    /// A directive with no document before it since the last `---` line: kubectl,
    /// kustomize and kpt cut a stream at its `---` lines before go-yaml reads it, which
    /// leaves such a directive alone, without its document.
    DirectiveWithoutDocument,
    /// Content after a `---` marker on its line, past the first line of the stream:
    /// kubectl and kustomize refuse such a document separator.
    ContentAfterDocumentMarker,
    /// An anchor or alias name that is empty or followed by a character names cannot
    /// hold.
    MalformedAnchor,
    /// A tag that is not well formed.
    MalformedTag,
    /// A tag handle (`!e!`) that no `%TAG` directive defines.
    UndefinedTagHandle,
    /// A block scalar header (`|2-`) that is not well formed.
    MalformedBlockScalarHeader,
    /// The text ends inside a quoted scalar.
    UnterminatedQuotedScalar,
    /// `---` or `...` at the start of a line inside a quoted scalar.
    DocumentMarkerInQuotedScalar,
    /// A `\` escape go-yaml does not know (`\/` in YAML text, `\q`).
    UnknownEscape,
    /// A `\x`, `\u` or `\U` escape without its hexadecimal digits.
    MalformedEscape,
    /// An escape naming a surrogate or a code point past U+10FFFF.
    InvalidEscapedCharacter,
    /// Content where a document start (`---`) is expected: after directives, or after
    /// the end of a document's content.
    ExpectedDocumentStart,
    /// Where a node is expected, an indicator that cannot start one (`{: x}`).
    ExpectedNode,
    /// In a block sequence, something other than a `-` entry.
    ExpectedBlockEntry,
    /// In a block mapping, something other than a key.
    ExpectedKey,
    /// In a flow sequence, something other than `,` or `]` after an item.
    ExpectedFlowSequenceSeparator,
    /// In a flow mapping, something other than `,` or `}` after an entry.
    ExpectedFlowMappingSeparator,
    /// An alias (`*name`) whose anchor is not defined before it.
    UndefinedAlias,
    /// An alias inside the collection its anchor names.
    RecursiveAlias,
    /// An alias (`*name`) to an anchor of an earlier document: an anchor holds only in
    /// its own document, and kubectl, kustomize and kpt refuse it ("unknown anchor").
    AliasToAnotherDocument,
    /// A key that a mapping already has (the API server refuses duplicate fields).
    DuplicateKey,
    /// A work limit.
    Limit(Limit),
}

impl ErrorKind {
    /// What went wrong, in a few words (messages at the edge add the fix).
    pub fn describe(self) -> String {
        match self {
            ErrorKind::ControlCharacter { code } => format!(
                "the character U+{code:04X} is not allowed in YAML, not even in a comment; remove it, or write it escaped inside a double-quoted string (\"\\u{code:04X}\")"
            ),
            ErrorKind::UnexpectedCharacter => {
                "found a character that cannot start any token (a tab cannot indent a block line)".into()
            }
            ErrorKind::TabInIndentation => {
                "found a tab character that violates indentation".into()
            }
            ErrorKind::TabInBlockScalarIndentation => {
                "found a tab character where a block scalar's indentation space is expected".into()
            }
            ErrorKind::BlockEntryNotAllowed => {
                "block sequence entries are not allowed in this context".into()
            }
            ErrorKind::KeyNotAllowed => "mapping keys are not allowed in this context".into(),
            ErrorKind::ValueNotAllowed => {
                "mapping values are not allowed in this context (an implicit key must be on one line, at most 1024 characters)".into()
            }
            ErrorKind::MissingColon => "could not find the expected ':' after a key".into(),
            ErrorKind::UnknownDirective => {
                "found an unknown directive name (only %YAML and %TAG exist)".into()
            }
            ErrorKind::MalformedDirective => "found a malformed %YAML or %TAG directive".into(),
            ErrorKind::IncompatibleVersion => {
                "found an incompatible YAML document (go-yaml reads only %YAML 1.1; drop the directive)".into()
            }
            ErrorKind::DuplicateDirective => "found a duplicate %YAML or %TAG directive".into(),
            ErrorKind::DirectiveWithoutDocument => {
                "a directive (%YAML, %TAG) before the stream's documents: kubectl, kustomize and kpt cut the stream at '---' lines and then refuse it (did not find expected <document start>); drop the directive".into()
            }
            ErrorKind::ContentAfterDocumentMarker => {
                "content after a '---' marker on its line: kubectl and kustomize refuse it as an invalid document separator; start the document on the next line".into()
            }
            ErrorKind::MalformedAnchor => {
                "an anchor or alias name must be letters, digits, '_' or '-', followed by a space".into()
            }
            ErrorKind::MalformedTag => "found a malformed tag".into(),
            ErrorKind::UndefinedTagHandle => "found an undefined tag handle".into(),
            ErrorKind::MalformedBlockScalarHeader => {
                "found a malformed block scalar header (| or > then an indentation digit 1-9 and/or a chomping + or -, then a comment or the end of the line)".into()
            }
            ErrorKind::UnterminatedQuotedScalar => {
                "found the end of the text inside a quoted scalar".into()
            }
            ErrorKind::DocumentMarkerInQuotedScalar => {
                "found a document marker (--- or ...) at the start of a line inside a quoted scalar".into()
            }
            ErrorKind::UnknownEscape => "found an unknown escape character".into(),
            ErrorKind::MalformedEscape => {
                "did not find the expected hexadecimal digits of an escape".into()
            }
            ErrorKind::InvalidEscapedCharacter => {
                "found an escape of an invalid Unicode character (a surrogate, or past U+10FFFF)".into()
            }
            ErrorKind::ExpectedDocumentStart => {
                "did not find the expected document start (---)".into()
            }
            ErrorKind::ExpectedNode => "did not find the expected node content".into(),
            ErrorKind::ExpectedBlockEntry => "did not find the expected '-' indicator".into(),
            ErrorKind::ExpectedKey => {
                "did not find the expected key (wrong indentation?)".into()
            }
            ErrorKind::ExpectedFlowSequenceSeparator => {
                "did not find the expected ',' or ']'".into()
            }
            ErrorKind::ExpectedFlowMappingSeparator => {
                "did not find the expected ',' or '}'".into()
            }
            ErrorKind::UndefinedAlias => "alias names an anchor that is not defined".into(),
            ErrorKind::AliasToAnotherDocument => {
                "alias names an anchor of an earlier document, and an anchor holds only in its own document (kubectl, kustomize and kpt refuse it: \"unknown anchor\"); write the value out, or define the anchor in this document".into()
            }
            ErrorKind::RecursiveAlias => {
                "alias refers to a collection that contains it (a recursive alias); no Kubernetes reader accepts it".into()
            }
            ErrorKind::DuplicateKey => {
                "duplicate key in a mapping (the API server rejects duplicate fields; keep one; see the line and column for which)".into()
            }
            ErrorKind::Limit(Limit::TextSize) => format!(
                "the text is past the size limit of {} bytes (4 GiB) for one text; split the input",
                crate::limits::MAX_TEXT_BYTES
            ),
            ErrorKind::Limit(Limit::Nesting) => format!(
                "collections nest deeper than {} levels (the nesting limit); no manifest needs this",
                crate::limits::MAX_DEPTH
            ),
            ErrorKind::Limit(Limit::AliasExpansion) => format!(
                "the document's aliases expand it past the alias expansion limit ({} nodes or {} times the nodes written); the collection starting here is where it was passed: write those parts out or use fewer aliases",
                crate::limits::MAX_ALIAS_EXPANSION,
                crate::limits::MAX_ALIAS_RATIO
            ),
        }
    }
}

/// A refused text: what went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    line: usize,
    column: usize,
    /// A duplicate key as written, when it is shown (see [`Error::message`]).
    key: Option<Box<str>>,
    /// The alias (`*name`) an alias error is about.
    alias: Option<Box<str>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: usize, line: usize, column: usize) -> Error {
        Error {
            kind,
            offset,
            line,
            column,
            key: None,
            alias: None,
        }
    }

    /// The error, naming the alias (`*name`) an alias error is about.
    pub(crate) fn with_alias(mut self, alias: &str) -> Error {
        self.alias = Some(alias.into());
        self
    }

    /// The same error naming the duplicate key, as written.
    pub(crate) fn with_key(mut self, key: &str) -> Error {
        self.key = Some(key.into());
        self
    }

    /// What was refused.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What went wrong, for a message: [`ErrorKind::describe`], naming the key of a
    /// duplicate key when it was written as a key (followed by its `:`), and the alias an
    /// alias error is about. A key written with no value is not named: it may be a value
    /// typed as a flow mapping, such as a Secret's (`{hunter2, hunter2}`).
    pub fn message(&self) -> String {
        match (&self.key, &self.alias, self.kind) {
            (Some(key), _, ErrorKind::DuplicateKey) => format!(
                "duplicate key {key} in a mapping (the API server rejects duplicate fields; keep one)"
            ),
            (_, Some(alias), _) => format!("{alias}: {}", self.kind.describe()),
            _ => self.kind.describe(),
        }
    }

    /// The byte offset in the text parsed (not counting the context's line base).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 1-based line, counting the context's line base.
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column, in characters.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The work limit the text reached, when that is why it was refused.
    pub fn limit(&self) -> Option<Limit> {
        match self.kind {
            ErrorKind::Limit(l) => Some(l),
            _ => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line,
            self.column,
            self.message()
        )
    }
}

impl std::error::Error for Error {}

/// Refuses characters YAML does not allow anywhere in a stream (not even in comments):
/// C0 controls other than tab, LF and CR, DEL, C1 controls other than NEL, U+FFFE and
/// U+FFFF, as go-yaml (kubectl, kustomize, kpt) refuses them. For a whole input before
/// it is cut into parts: the error says which character and where, never the text
/// around it.
pub fn check_characters(src: &str) -> Result<(), Error> {
    match first_refused_character(src) {
        None => Ok(()),
        Some((pos, c)) => {
            let before = &src[..pos];
            let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let code = u32::from(c);
            Err(Error::new(
                ErrorKind::ControlCharacter { code },
                pos,
                line,
                column,
            ))
        }
    }
}

/// A character YAML refuses anywhere in a stream.
fn refused(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
        || (('\u{80}'..='\u{9f}').contains(&c) && c != '\u{85}')
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

/// The first refused character and where it starts. This reads every byte of the input
/// before anything else runs, so it looks at blocks of bytes at once: a block of
/// printable ASCII, tabs and line breaks (nearly every block of a manifest) needs no
/// character decoded; only a block holding another byte is read character by character.
fn first_refused_character(src: &str) -> Option<(usize, char)> {
    const BLOCK: usize = 64;
    // Not printable ASCII, tab, LF or CR: a control character, DEL, or a byte of a
    // character past ASCII.
    let suspect = |b: u8| b >= 0x7f || (b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r');
    let bytes = src.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        let end = (pos + BLOCK).min(bytes.len());
        // No early exit: the compiler reads the whole block in vector registers.
        if !bytes[pos..end]
            .iter()
            .fold(false, |any, &b| any | suspect(b))
        {
            pos = end;
            continue;
        }
        // `pos` is a character boundary: blocks start at one, and a character that
        // runs past the block's end moves the next block's start past it.
        while pos < end {
            if !suspect(bytes[pos]) {
                pos += 1;
                continue;
            }
            let c = src[pos..].chars().next()?;
            if refused(c) {
                return Some((pos, c));
            }
            pos += c.len_utf8();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_characters_are_found_where_a_character_by_character_search_finds_them() {
        // Every refused and allowed character class, at every offset around a block's
        // edges, with multi-byte characters that straddle them.
        let pieces = [
            "a", "\t", "\n", "\r", " ", "\u{0}", "\u{7}", "\u{1f}", "\u{7f}", "\u{80}", "\u{85}",
            "\u{9f}", "\u{a0}", "é", "\u{2028}", "\u{fffd}", "\u{fffe}", "\u{ffff}", "🚀",
        ];
        let slow = |s: &str| s.char_indices().find(|&(_, c)| refused(c));
        for before in ["", "é", "🚀", "\u{85}"] {
            for len in [0, 1, 2, 61, 62, 63, 64, 65, 127, 128, 129] {
                let prefix = format!("{}{before}", "x".repeat(len));
                for p in pieces {
                    for tail in ["", "x", "\u{7}", "🚀🚀"] {
                        let s = format!("{prefix}{p}{tail}");
                        assert_eq!(first_refused_character(&s), slow(&s), "{s:?}");
                    }
                }
            }
        }
    }
}
