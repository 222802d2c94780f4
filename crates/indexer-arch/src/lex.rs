//! Rust source into the tokens the module graph needs: identifiers and punctuation with their
//! line. Comments and literals (strings, raw strings, characters, numbers) are skipped, so a
//! path written in a doc comment or a string is never read as a reference.

/// One token of a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (`r#` of a raw identifier removed).
    Ident(String),
    /// `::`
    PathSep,
    /// Any other punctuation character.
    Punct(char),
}

/// A token and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

/// The tokens of `src`.
pub fn tokens(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i, &mut line);
        } else if let Some(end) = raw_string_end(&chars, i, &mut line) {
            i = end;
        } else if c == '"' || ((c == 'b' || c == 'c') && next == Some('"')) {
            let start = if c == '"' { i } else { i + 1 };
            i = skip_quoted(&chars, start, '"', &mut line);
        } else if c == 'b' && next == Some('\'') {
            i = skip_quoted(&chars, i + 1, '\'', &mut line);
        } else if c == '\'' {
            i = skip_char_or_lifetime(&chars, i, &mut line);
        } else if c == 'r'
            && next == Some('#')
            && chars.get(i + 2).is_some_and(|&c| is_ident_start(c))
        {
            let (word, end) = ident(&chars, i + 2);
            out.push(Token {
                tok: Tok::Ident(word),
                line,
            });
            i = end;
        } else if is_ident_start(c) {
            let (word, end) = ident(&chars, i);
            out.push(Token {
                tok: Tok::Ident(word),
                line,
            });
            i = end;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
            i += 1;
        }
    }
    out
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn ident(chars: &[char], start: usize) -> (String, usize) {
    let mut end = start;
    while end < chars.len() && (chars[end] == '_' || chars[end].is_alphanumeric()) {
        end += 1;
    }
    (chars[start..end].iter().collect(), end)
}

fn skip_block_comment(chars: &[char], start: usize, line: &mut usize) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// `r"…"`, `r#"…"#`, `br#"…"#`, `cr"…"`: the index after the literal, or `None` if none starts
/// at `start`.
fn raw_string_end(chars: &[char], start: usize, line: &mut usize) -> Option<usize> {
    let mut i = start;
    if matches!(chars.get(i), Some('b' | 'c')) {
        i += 1;
    }
    if chars.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    // An identifier such as `br` or `r` right before: the literal must not continue a word.
    if start > 0 && (chars[start - 1].is_alphanumeric() || chars[start - 1] == '_') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        if chars[i] == '\n' {
            *line += 1;
        }
        i += 1;
    }
    Some(i)
}

/// A literal opened by `quote` at `start`: the index after its closing quote.
fn skip_quoted(chars: &[char], start: usize, quote: char, line: &mut usize) -> usize {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            c => {
                if c == '\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    i
}

/// `'a'`, `'\n'`, `'\u{1F600}'` (a character) or `'a` (a lifetime or label).
fn skip_char_or_lifetime(chars: &[char], start: usize, line: &mut usize) -> usize {
    match chars.get(start + 1) {
        Some('\\') => skip_quoted(chars, start, '\'', line),
        Some(_) if chars.get(start + 2) == Some(&'\'') => start + 3,
        _ => {
            let mut i = start + 1;
            while i < chars.len() && (chars[i] == '_' || chars[i].is_alphanumeric()) {
                i += 1;
            }
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        tokens(src)
            .into_iter()
            .filter_map(|t| match t.tok {
                Tok::Ident(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_and_literals_hide_their_words() {
        let src = r###"
            // use crate::one;
            /* use crate::two; /* nested crate::three */ */
            let s = "crate::four"; let r = r#"crate::five "quoted""#; let b = b"crate::six";
            let c = '"'; let e = '\''; let l: &'static str = x; 'outer: loop {}
            use crate::g;
        "###;
        let words = idents(src);
        for hidden in [
            "one", "two", "three", "four", "five", "six", "quoted", "outer", "static",
        ] {
            assert!(
                !words.contains(&hidden.to_string()),
                "{hidden} in {words:?}"
            );
        }
        assert!(words.contains(&"g".to_string()));
        assert!(words.contains(&"loop".to_string()));
    }

    #[test]
    fn lines_count_inside_comments_and_strings() {
        let toks = tokens("/* one\ntwo */ \"a\nb\"\nx");
        assert_eq!(toks.last().unwrap().line, 4);
        assert_eq!(toks.last().unwrap().tok, Tok::Ident("x".into()));
    }

    #[test]
    fn path_separators_and_raw_identifiers() {
        let toks = tokens("crate::r#type::X");
        assert_eq!(
            toks.iter().map(|t| t.tok.clone()).collect::<Vec<_>>(),
            vec![
                Tok::Ident("crate".into()),
                Tok::PathSep,
                Tok::Ident("type".into()),
                Tok::PathSep,
                Tok::Ident("X".into()),
            ]
        );
    }
}
