// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reads the declarations of `include/handoff.h`: the subset of C it is
//! written in (typedef'd enums and structs, `HANDOFF_API` prototypes,
//! object-like `#define`s). A renamed field,
//! `HANDOFF_RENAMED_FIELD_(current, old)`, reads as its current name; macros
//! whose names end in `_` are the header's machinery, not its interface.

use super::model::{closing, eval, split_top_level, tokenize, Constant, Decls, Function};

/// Macros that are not part of the interface.
const NOT_CONSTANTS: [&str; 2] = ["HANDOFF_H", "HANDOFF_API"];

pub fn parse(header: &str) -> Result<Decls, String> {
    let text = strip_comments(header);
    let mut decls = Decls::default();
    let mut defines: Vec<(String, String)> = Vec::new();
    let mut code = String::new();
    // Preprocessor lines (with their continuations) apart from the code.
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with('#') {
            let mut full = line.to_owned();
            while full.ends_with('\\') {
                full.pop();
                full.push_str(lines.next().unwrap_or(""));
            }
            if let Some(rest) = full.trim_start().strip_prefix('#').map(str::trim_start) {
                if let Some(def) = rest.strip_prefix("define") {
                    let def = def.trim();
                    let (name, value) = def.split_once(char::is_whitespace).unwrap_or((def, ""));
                    if !name.contains('(') && !name.ends_with('_') && !NOT_CONSTANTS.contains(&name)
                    {
                        defines.push((name.to_owned(), value.trim().to_owned()));
                    }
                }
            }
        } else {
            code.push_str(line);
            code.push('\n');
        }
    }

    let tokens = tokenize(&code);
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "typedef" if tokens.get(i + 1).map(String::as_str) == Some("enum") => {
                i = parse_enum(&tokens, i, &mut decls)?;
            }
            "typedef" if tokens.get(i + 1).map(String::as_str) == Some("struct") => {
                i = parse_struct(&tokens, i, &mut decls)?;
            }
            "HANDOFF_API" => {
                let end = (i..tokens.len())
                    .find(|&j| tokens[j] == ";")
                    .ok_or("prototype without ;")?;
                let (name, function) = parse_function(&tokens[i + 1..end])?;
                if decls.functions.insert(name.clone(), function).is_some() {
                    return Err(format!("{name} is declared twice"));
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }

    // Defines may name enum constants and each other: evaluate in order.
    for (name, value) in defines {
        let constant = define_value(&value, &decls)?;
        decls.constants.insert(name, constant);
    }
    Ok(decls)
}

fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.map_or(true, |l| b < l) => {
                out.push_str(&rest[..b]);
                let end = rest[b + 2..]
                    .find("*/")
                    .map_or(rest.len(), |e| b + 2 + e + 2);
                // Keep line structure for the preprocessor pass.
                out.extend(rest[b..end].chars().filter(|&c| c == '\n'));
                rest = &rest[end..];
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                let end = rest[l..].find('\n').map_or(rest.len(), |e| l + e);
                rest = &rest[end..];
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

fn int_of(decls: &Decls) -> impl Fn(&str) -> Option<i64> + '_ {
    move |name| match decls.constants.get(name) {
        Some(Constant::Int(v)) => Some(*v),
        _ => None,
    }
}

fn define_value(value: &str, decls: &Decls) -> Result<Constant, String> {
    if value.starts_with('"') {
        return Ok(Constant::Str(value.trim_matches('"').to_owned()));
    }
    let tokens = tokenize(value);
    if tokens.first().map(String::as_str) == Some("{") {
        let inner = &tokens[1..closing(&tokens, 0)];
        let elements = split_top_level(inner)
            .iter()
            .map(|e| init_element(e, decls))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Constant::Init(elements));
    }
    eval(&tokens, &int_of(decls)).map(Constant::Int)
}

/// `NULL` (or `{NULL}`, a renamed field's union) -> null, `sizeof(T)` ->
/// sizeof(T), else an integer expression.
fn init_element(e: &[String], decls: &Decls) -> Result<String, String> {
    match e.first().map(String::as_str) {
        Some("NULL") if e.len() == 1 => Ok("null".into()),
        Some("{") if e.len() == 3 && e[1] == "NULL" && e[2] == "}" => Ok("null".into()),
        Some("sizeof") => Ok(format!("sizeof({})", e[2..e.len() - 1].join(" "))),
        _ => eval(e, &int_of(decls)).map(|v| v.to_string()),
    }
}

/// `typedef enum NAME { A = 1, B, ... } NAME;`
fn parse_enum(t: &[String], start: usize, decls: &mut Decls) -> Result<usize, String> {
    let open = (start..t.len())
        .find(|&j| t[j] == "{")
        .ok_or("enum without {")?;
    let close = closing(t, open);
    let name = t[close + 1].clone();
    let mut next = 0i64;
    for item in split_top_level(&t[open + 1..close]) {
        let value = match item.iter().position(|x| x == "=") {
            Some(eq) => eval(&item[eq + 1..], &int_of(decls))?,
            None => next,
        };
        decls
            .constants
            .insert(item[0].clone(), Constant::Int(value));
        next = value + 1;
    }
    decls.enums.push(name);
    Ok(close + 3)
}

/// `typedef struct NAME NAME;` (opaque) or `typedef struct NAME {...} NAME;`
fn parse_struct(t: &[String], start: usize, decls: &mut Decls) -> Result<usize, String> {
    let tag = &t[start + 2];
    if t[start + 3] == *tag && t[start + 4] == ";" {
        decls.opaque.push(tag.clone());
        return Ok(start + 5);
    }
    if t[start + 3] != "{" {
        return Err(format!("unexpected struct form at {tag}"));
    }
    let close = closing(t, start + 3);
    let body = &t[start + 4..close];
    let mut fields = Vec::new();
    let mut field: Vec<String> = Vec::new();
    for tok in body {
        if tok == ";" {
            fields.push(parse_field(&field)?);
            field.clear();
        } else {
            field.push(tok.clone());
        }
    }
    decls.structs.insert(t[close + 1].clone(), fields);
    Ok(close + 3)
}

/// A struct field: a declaration, or `HANDOFF_RENAMED_FIELD_(current, old)`
/// read as `current` (the old name is a deprecated alias in the same union).
fn parse_field(t: &[String]) -> Result<(String, String), String> {
    if t.first().map(String::as_str) != Some("HANDOFF_RENAMED_FIELD_") {
        return parse_declaration(t);
    }
    if t.get(1).map(String::as_str) != Some("(") || closing(t, 1) != t.len() - 1 {
        return Err(format!("malformed renamed field: {}", t.join(" ")));
    }
    let args = split_top_level(&t[2..t.len() - 1]);
    match args.as_slice() {
        [current, _old] => parse_declaration(current),
        _ => Err(format!(
            "a renamed field takes (current, old): {}",
            t.join(" ")
        )),
    }
}

/// `RET NAME(PARAMS)` of a prototype.
fn parse_function(t: &[String]) -> Result<(String, Function), String> {
    let open = t
        .iter()
        .position(|x| x == "(")
        .ok_or("prototype without (")?;
    let name = t[open - 1].clone();
    let ret = canonical(&t[..open - 1])?;
    let params = parameters(&t[open + 1..closing(t, open)])?;
    Ok((name, Function { ret, params }))
}

/// Canonical types of a parameter list; `(void)` is empty.
fn parameters(t: &[String]) -> Result<Vec<String>, String> {
    if t.len() == 1 && t[0] == "void" {
        return Ok(Vec::new());
    }
    split_top_level(t)
        .iter()
        .map(|p| parse_declaration(p).map(|(_, ty)| ty))
        .collect()
}

/// One declaration, `TYPE NAME` or `RET (*NAME)(PARAMS)`: its name and
/// canonical type.
fn parse_declaration(t: &[String]) -> Result<(String, String), String> {
    if let Some(open) = t.iter().position(|x| x == "(") {
        // A function pointer: RET ( * NAME ) ( PARAMS )
        if t.get(open + 1).map(String::as_str) != Some("*") {
            return Err(format!("unsupported declarator: {}", t.join(" ")));
        }
        let name = t[open + 2].clone();
        let params_open = open + 4;
        let ret = canonical(&t[..open])?;
        let params = parameters(&t[params_open + 1..closing(t, params_open)])?;
        return Ok((name, format!("fn({}) -> {}", params.join(", "), ret)));
    }
    let (name, ty) = t.split_last().ok_or("empty declaration")?;
    Ok((name.clone(), canonical(ty)?))
}

/// The canonical form of a C type without declarator name, e.g.
/// `const char *` -> `*c char`, `handoff_responder *const *` ->
/// `*c *m handoff_responder`.
pub fn canonical(t: &[String]) -> Result<String, String> {
    let first_star = t.iter().position(|x| x == "*").unwrap_or(t.len());
    let base_words: Vec<&str> = t[..first_star]
        .iter()
        .map(String::as_str)
        .filter(|w| *w != "const")
        .collect();
    let mut is_const = t[..first_star].iter().any(|w| w == "const");
    let mut ty = scalar(&base_words.join(" "))?;
    let mut i = first_star;
    while i < t.len() {
        match t[i].as_str() {
            "*" => {
                ty = format!("*{} {}", if is_const { "c" } else { "m" }, ty);
                is_const = false;
            }
            "const" => is_const = true,
            other => return Err(format!("unexpected {other} in type {}", t.join(" "))),
        }
        i += 1;
    }
    Ok(ty)
}

fn scalar(c: &str) -> Result<String, String> {
    Ok(match c {
        "void" => "void",
        "char" => "char",
        "int" => "int",
        "unsigned" | "unsigned int" => "uint",
        "size_t" => "usize",
        "int64_t" => "i64",
        "uint8_t" => "u8",
        "double" => "f64",
        _ if c.starts_with("handoff_") && !c.contains(' ') => c,
        _ => {
            return Err(format!(
                "no canonical form for C type {c:?}: teach tests/decls/c.rs"
            ))
        }
    }
    .to_owned())
}
