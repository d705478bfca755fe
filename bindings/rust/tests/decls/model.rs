// SPDX-License-Identifier: MIT OR Apache-2.0
//! What both parsers produce: the declarations of one interface, with
//! types written in one canonical form so C and Rust compare as text.
//!
//! Canonical types: scalars by size and sign (`int`, `uint`, `char`,
//! `void`, `usize`, `i64`, `u8`, `f64`), named types by name, pointers as
//! `*c T` / `*m T` (pointee const or mutable), function pointers as
//! `fn(P, ...) -> R` (`void` when nothing is returned).

use std::collections::BTreeMap;

/// A function: canonical return type and parameter types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub ret: String,
    pub params: Vec<String>,
}

/// A constant: an integer, a string, or an `_INIT` initializer whose
/// elements are canonical (`null`, `sizeof(T)`, or an integer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Constant {
    Int(i64),
    Str(String),
    Init(Vec<String>),
}

/// Everything one side declares.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    pub functions: BTreeMap<String, Function>,
    pub constants: BTreeMap<String, Constant>,
    /// Struct name to its fields (name, canonical type), in order.
    pub structs: BTreeMap<String, Vec<(String, String)>>,
    /// Opaque handle types.
    pub opaque: Vec<String>,
    /// Enum types (C `typedef enum`, Rust `pub type X = c_uint`).
    pub enums: Vec<String>,
}

/// Splits source into tokens: identifiers and numbers, string literals,
/// `->`, `::` and single punctuation.
pub fn tokenize(src: &str) -> Vec<String> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            // A Rust C-string literal c"..." stays one token.
            if i < chars.len() && chars[i] == '"' && i - start == 1 && chars[start] == 'c' {
                let (lit, next) = string_literal(&chars, i);
                tokens.push(format!("c{lit}"));
                i = next;
            } else {
                tokens.push(chars[start..i].iter().collect());
            }
        } else if c == '"' {
            let (lit, next) = string_literal(&chars, i);
            tokens.push(lit);
            i = next;
        } else if (c == '-' && chars.get(i + 1) == Some(&'>'))
            || (c == ':' && chars.get(i + 1) == Some(&':'))
        {
            tokens.push(chars[i..i + 2].iter().collect());
            i += 2;
        } else if c == '.' && chars.get(i + 1) == Some(&'.') {
            tokens.push("..".into());
            i += 2;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

fn string_literal(chars: &[char], open: usize) -> (String, usize) {
    let mut i = open + 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    (chars[open..=i.min(chars.len() - 1)].iter().collect(), i + 1)
}

/// Splits tokens at commas outside (), [], {} and <>.
pub fn split_top_level(tokens: &[String]) -> Vec<Vec<String>> {
    let mut parts = vec![Vec::new()];
    let mut depth = 0i32;
    for t in tokens {
        match t.as_str() {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            "," if depth == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(t.clone());
    }
    if parts.last().is_some_and(Vec::is_empty) {
        parts.pop();
    }
    parts
}

/// The index of the bracket closing the one at `open`.
pub fn closing(tokens: &[String], open: usize) -> usize {
    let (o, c) = match tokens[open].as_str() {
        "(" => ("(", ")"),
        "{" => ("{", "}"),
        "[" => ("[", "]"),
        "<" => ("<", ">"),
        other => panic!("not an opening bracket: {other}"),
    };
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if t == o {
            depth += 1;
        } else if t == c {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
    }
    panic!("unbalanced {o} at token {open}");
}

/// Evaluates an integer expression of literals, names (looked up in
/// `known`), + - * / and parentheses.
pub fn eval(tokens: &[String], known: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    let mut pos = 0;
    let v = sum(tokens, &mut pos, known)?;
    if pos != tokens.len() {
        return Err(format!(
            "unexpected {:?} in {}",
            tokens[pos],
            tokens.join(" ")
        ));
    }
    Ok(v)
}

fn sum(t: &[String], pos: &mut usize, known: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    let mut v = product(t, pos, known)?;
    while *pos < t.len() && (t[*pos] == "+" || t[*pos] == "-") {
        let plus = t[*pos] == "+";
        *pos += 1;
        let r = product(t, pos, known)?;
        v = if plus { v + r } else { v - r };
    }
    Ok(v)
}

fn product(
    t: &[String],
    pos: &mut usize,
    known: &dyn Fn(&str) -> Option<i64>,
) -> Result<i64, String> {
    let mut v = atom(t, pos, known)?;
    while *pos < t.len() && (t[*pos] == "*" || t[*pos] == "/") {
        let times = t[*pos] == "*";
        *pos += 1;
        let r = atom(t, pos, known)?;
        v = if times { v * r } else { v / r };
    }
    Ok(v)
}

fn atom(t: &[String], pos: &mut usize, known: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    let tok = t.get(*pos).ok_or("expression ends early")?;
    *pos += 1;
    match tok.as_str() {
        "(" => {
            let v = sum(t, pos, known)?;
            if t.get(*pos).map(String::as_str) != Some(")") {
                return Err("missing )".into());
            }
            *pos += 1;
            Ok(v)
        }
        "-" => Ok(-atom(t, pos, known)?),
        _ if tok.starts_with(|c: char| c.is_ascii_digit()) => {
            let digits = tok.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            digits.parse().map_err(|_| format!("bad number {tok}"))
        }
        _ => known(tok).ok_or_else(|| format!("unknown name {tok}")),
    }
}
