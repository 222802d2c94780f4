//! One source file's tokens into what the module graph needs of it: the modules it declares
//! (`mod x;`) and holds inline (`mod x { … }`), and for each its `use` items, the paths its
//! code names (`crate::…`, `super::…`, `self::…`, `child::…`) and the names it defines. Code
//! under `#[cfg(test)]` is left out: a test may reach anywhere in its crate.

use crate::lex::{Tok, Token};

/// A `use` leaf: `use a::b::{c as d, e::*};` has two, `[a, b, c]` bound as `d` and the glob
/// `[a, b, e]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// The path as written (`crate`, `super`, `self` included).
    pub path: Vec<String>,
    /// `use path::*`.
    pub glob: bool,
    /// The name it binds (its alias or last segment); `None` for a glob or `as _`.
    pub name: Option<String>,
    /// `pub use` or `pub(…) use`: a re-export, not a dependency of the module that writes it.
    pub public: bool,
    pub line: usize,
}

/// What one module of a file (the file's own module, or one written inline in it) holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedModule {
    /// The path below the file's module: empty for the file's module, `[inner]` for
    /// `mod inner { … }`.
    pub inline_path: Vec<String>,
    /// `mod x;`: modules in files of their own.
    pub declared: Vec<String>,
    pub uses: Vec<Use>,
    /// Paths of two or more segments named in code, with their line.
    pub paths: Vec<(Vec<String>, usize)>,
    /// Items defined here (functions, types, traits, constants, statics, macros).
    pub defined: Vec<String>,
}

/// The modules of one file: the file's own module first, then the inline ones.
pub fn parse(tokens: &[Token]) -> Vec<ParsedModule> {
    let mut modules = vec![ParsedModule::default()];
    // (index into `modules`, brace depth at which it closes)
    let mut stack: Vec<(usize, usize)> = vec![(0, usize::MAX)];
    let mut depth = 0usize;
    let mut test_item = false;
    let mut i = 0;
    while i < tokens.len() {
        let current = stack.last().expect("the file's module is never popped").0;
        match &tokens[i].tok {
            Tok::Punct('#') => {
                let (end, is_test) = attribute(tokens, i);
                test_item |= is_test;
                i = end;
                continue;
            }
            _ if test_item => {
                test_item = false;
                i = skip_item(tokens, i);
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if stack.len() > 1 && stack.last().is_some_and(|&(_, d)| d == depth) {
                    stack.pop();
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(Tok::Ident(name)) = tokens.get(i + 1).map(|t| &t.tok) {
                    match tokens.get(i + 2).map(|t| &t.tok) {
                        Some(Tok::Punct(';')) => {
                            modules[current].declared.push(name.clone());
                            i += 3;
                            continue;
                        }
                        Some(Tok::Punct('{')) => {
                            let mut inline_path = modules[current].inline_path.clone();
                            inline_path.push(name.clone());
                            modules.push(ParsedModule {
                                inline_path,
                                ..Default::default()
                            });
                            stack.push((modules.len() - 1, depth));
                            depth += 1;
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            Tok::Ident(w) if w == "use" => {
                let public = is_public(tokens, i);
                let end = statement_end(tokens, i);
                let mut leaves = Vec::new();
                use_tree(&tokens[i + 1..end], &mut Vec::new(), &mut leaves);
                for (path, glob, name) in leaves {
                    modules[current].uses.push(Use {
                        path,
                        glob,
                        name,
                        public,
                        line: tokens[i].line,
                    });
                }
                i = end + 1;
                continue;
            }
            Tok::Ident(w) if is_definer(w) => {
                if let Some(name) = defined_name(tokens, i) {
                    modules[current].defined.push(name);
                }
            }
            Tok::Ident(first)
                if tokens.get(i + 1).map(|t| &t.tok) == Some(&Tok::PathSep)
                    && (i == 0 || tokens[i - 1].tok != Tok::PathSep)
                    && first != "Self" =>
            {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j).map(|t| &t.tok) == Some(&Tok::PathSep) {
                    match tokens.get(j + 1).map(|t| &t.tok) {
                        Some(Tok::Ident(seg)) => {
                            path.push(seg.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                if path.len() >= 2 {
                    modules[current].paths.push((path, tokens[i].line));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    modules
}

/// An attribute starting at `#`: the index after it, and whether it is `#[cfg(test)]`.
fn attribute(tokens: &[Token], start: usize) -> (usize, bool) {
    let mut i = start + 1;
    if tokens.get(i).map(|t| &t.tok) == Some(&Tok::Punct('!')) {
        i += 1;
    }
    if tokens.get(i).map(|t| &t.tok) != Some(&Tok::Punct('[')) {
        return (start + 1, false);
    }
    let open = i;
    let mut depth = 0;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let inner: Vec<&Tok> = tokens[open + 1..i.min(tokens.len())]
        .iter()
        .map(|t| &t.tok)
        .collect();
    let is_test = inner
        == [
            &Tok::Ident("cfg".into()),
            &Tok::Punct('('),
            &Tok::Ident("test".into()),
            &Tok::Punct(')'),
        ];
    (i + 1, is_test)
}

/// The index after the item starting at `start`: its `;`, or the block its first `{` opens.
fn skip_item(tokens: &[Token], start: usize) -> usize {
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') => {
                let mut depth = 0;
                while i < tokens.len() {
                    match tokens[i].tok {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index of the `;` that ends the statement starting at `start`.
fn statement_end(tokens: &[Token], start: usize) -> usize {
    (start..tokens.len())
        .find(|&i| tokens[i].tok == Tok::Punct(';'))
        .unwrap_or(tokens.len())
}

/// `pub use` or `pub(crate) use`, `pub(in a::b) use`.
fn is_public(tokens: &[Token], use_at: usize) -> bool {
    let before = |k: usize| use_at.checked_sub(k).map(|i| &tokens[i].tok);
    if before(1) == Some(&Tok::Ident("pub".into())) {
        return true;
    }
    if before(1) != Some(&Tok::Punct(')')) {
        return false;
    }
    (2..12).any(|k| {
        before(k) == Some(&Tok::Punct('(')) && before(k + 1) == Some(&Tok::Ident("pub".into()))
    })
}

/// The leaves of a use tree: (path, glob, bound name).
fn use_tree(
    tokens: &[Token],
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, bool, Option<String>)>,
) {
    let depth_at_start = prefix.len();
    let mut i = 0;
    if tokens.first().map(|t| &t.tok) == Some(&Tok::PathSep) {
        i += 1;
    }
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Ident(w) if tokens.get(i + 1).map(|t| &t.tok) == Some(&Tok::PathSep) => {
                prefix.push(w.clone());
                i += 2;
            }
            Tok::Ident(w) => {
                let alias = match (tokens.get(i + 1), tokens.get(i + 2)) {
                    (
                        Some(a),
                        Some(Token {
                            tok: Tok::Ident(alias),
                            ..
                        }),
                    ) if a.tok == Tok::Ident("as".into()) => Some(alias.clone()),
                    _ => None,
                };
                let (path, own) = if w == "self" {
                    (prefix.clone(), prefix.last().cloned())
                } else {
                    let mut p = prefix.clone();
                    p.push(w.clone());
                    (p, Some(w.clone()))
                };
                let name = match alias {
                    Some(a) if a == "_" => None,
                    Some(a) => Some(a),
                    None => own,
                };
                out.push((path, false, name));
                break;
            }
            Tok::Punct('*') => {
                out.push((prefix.clone(), true, None));
                break;
            }
            Tok::Punct('{') => {
                // Split the group's contents at its top-level commas.
                let mut depth = 0;
                let mut part_start = i + 1;
                let mut j = i + 1;
                while j < tokens.len() {
                    match tokens[j].tok {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') if depth == 0 => {
                            use_tree(&tokens[part_start..j], prefix, out);
                            break;
                        }
                        Tok::Punct('}') => depth -= 1,
                        Tok::Punct(',') if depth == 0 => {
                            use_tree(&tokens[part_start..j], prefix, out);
                            part_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth_at_start);
}

fn is_definer(word: &str) -> bool {
    matches!(
        word,
        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union" | "macro_rules"
    )
}

/// The name an item keyword at `at` defines (`fn name`, `macro_rules! name`, `static mut X`).
fn defined_name(tokens: &[Token], at: usize) -> Option<String> {
    let mut i = at + 1;
    if tokens.get(i).map(|t| &t.tok) == Some(&Tok::Punct('!')) {
        i += 1;
    }
    if tokens.get(i).map(|t| &t.tok) == Some(&Tok::Ident("mut".into())) {
        i += 1;
    }
    match tokens.get(i).map(|t| &t.tok) {
        Some(Tok::Ident(name))
            if !matches!(name.as_str(), "fn" | "unsafe" | "extern" | "async" | "_") =>
        {
            Some(name.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tokens;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn use_trees_become_leaves() {
        let m = &parse(&tokens(
            "pub use a::{b::{self, C as D}, e::*};\nuse crate::f::G as _;",
        ))[0];
        let leaves: Vec<_> = m
            .uses
            .iter()
            .map(|u| (u.path.clone(), u.glob, u.name.clone(), u.public))
            .collect();
        assert_eq!(
            leaves,
            vec![
                (strings(&["a", "b"]), false, Some("b".into()), true),
                (strings(&["a", "b", "C"]), false, Some("D".into()), true),
                (strings(&["a", "e"]), true, None, true),
                (strings(&["crate", "f", "G"]), false, None, false),
            ]
        );
    }

    #[test]
    fn test_code_is_left_out_and_inline_modules_nest() {
        let src = "
            mod child;
            #[cfg(test)]
            mod tests { use crate::hidden::X; }
            #[cfg(test)]
            mod more_tests;
            #[cfg(test)]
            fn helper() { crate::hidden::f(); }
            mod inner { pub(crate) use super::x::Y; fn g() { crate::seen::h(); } }
            struct S;
            fn f() -> Option<u8> { crate::also::k() }
        ";
        let ms = parse(&tokens(src));
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[0].declared, strings(&["child"]));
        assert_eq!(ms[0].defined, strings(&["S", "f"]));
        assert_eq!(ms[0].paths, vec![(strings(&["crate", "also", "k"]), 11)]);
        assert_eq!(ms[1].inline_path, strings(&["inner"]));
        assert!(ms[1].uses[0].public);
        assert_eq!(ms[1].defined, strings(&["g"]));
        assert_eq!(ms[1].paths, vec![(strings(&["crate", "seen", "h"]), 9)]);
    }
}
