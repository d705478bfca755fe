// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reads the declarations of `src/sys.rs`: `extern "C"` functions,
//! `pub const`s, `pub type` enum aliases, `#[repr(C)]` structs and the
//! `opaque!` list.

use super::model::{closing, eval, split_top_level, tokenize, Constant, Decls, Function};

pub fn parse(source: &str) -> Result<Decls, String> {
    let code: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let t = tokenize(&code);
    let mut decls = Decls::default();
    let mut consts: Vec<(String, Vec<String>)> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let next = |k: usize| t.get(i + k).map(String::as_str);
        match (t[i].as_str(), next(1)) {
            ("pub", Some("fn")) => {
                let end = (i..t.len()).find(|&j| t[j] == ";").ok_or("fn without ;")?;
                let (name, function) = parse_function(&t[i + 2..end])?;
                if decls.functions.insert(name.clone(), function).is_some() {
                    return Err(format!("{name} is declared twice"));
                }
                i = end + 1;
            }
            ("pub", Some("const")) => {
                let end = statement_end(&t, i);
                let name = t[i + 2].clone();
                let eq = (i..end).find(|&j| t[j] == "=").ok_or("const without =")?;
                consts.push((name, t[eq + 1..end].to_vec()));
                i = end + 1;
            }
            ("pub", Some("type")) => {
                decls.enums.push(t[i + 2].clone());
                i = statement_end(&t, i) + 1;
            }
            ("pub", Some("struct")) => {
                let name = t[i + 2].clone();
                let open = (i..t.len())
                    .find(|&j| t[j] == "{")
                    .ok_or("struct without {")?;
                let close = closing(&t, open);
                // The opaque! macro's template (`pub struct $name`) is not
                // a struct of the interface.
                if name != "$" {
                    decls
                        .structs
                        .insert(name, parse_fields(&t[open + 1..close])?);
                }
                i = close + 1;
            }
            ("opaque", Some("!")) if next(2) == Some("(") => {
                let close = closing(&t, i + 2);
                for item in split_top_level(&t[i + 3..close]) {
                    decls.opaque.push(item.join(""));
                }
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    for (name, value) in consts {
        let constant = const_value(&value, &decls)?;
        decls.constants.insert(name, constant);
    }
    Ok(decls)
}

/// The `;` ending the item at `start`, outside braces.
fn statement_end(t: &[String], start: usize) -> usize {
    let mut depth = 0;
    for (j, tok) in t.iter().enumerate().skip(start) {
        match tok.as_str() {
            "{" | "(" => depth += 1,
            "}" | ")" => depth -= 1,
            ";" if depth == 0 => return j,
            _ => {}
        }
    }
    t.len()
}

fn int_of(decls: &Decls) -> impl Fn(&str) -> Option<i64> + '_ {
    move |name| match decls.constants.get(name) {
        Some(Constant::Int(v)) => Some(*v),
        _ => None,
    }
}

fn const_value(t: &[String], decls: &Decls) -> Result<Constant, String> {
    if let Some(lit) = t.first().and_then(|s| s.strip_prefix("c\"")) {
        return Ok(Constant::Str(lit.trim_end_matches('"').to_owned()));
    }
    // A struct literal: `handoff_x { field: value, ... }`.
    if t.get(1).map(String::as_str) == Some("{") {
        let close = closing(t, 1);
        let elements = split_top_level(&t[2..close])
            .iter()
            .map(|field| {
                let value = &field[field
                    .iter()
                    .position(|x| x == ":")
                    .ok_or("field without :")?
                    + 1..];
                init_element(value, decls)
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok(Constant::Init(elements));
    }
    eval(t, &int_of(decls)).map(Constant::Int)
}

/// `None`, `ptr::null()`, `ptr::null_mut()` -> null;
/// `size_of::<T>()` -> sizeof(T); else an integer expression.
fn init_element(v: &[String], decls: &Decls) -> Result<String, String> {
    let joined = v.join("");
    match joined.as_str() {
        "None" | "ptr::null()" | "ptr::null_mut()" => Ok("null".into()),
        _ if joined.starts_with("size_of::<") => Ok(format!(
            "sizeof({})",
            joined
                .trim_start_matches("size_of::<")
                .trim_end_matches(">()")
        )),
        _ => eval(v, &int_of(decls)).map(|x| x.to_string()),
    }
}

/// `NAME(PARAMS) -> RET` of an extern declaration.
fn parse_function(t: &[String]) -> Result<(String, Function), String> {
    let name = t[0].clone();
    let close = closing(t, 1);
    let params = parameters(&t[2..close])?;
    let ret = match t.get(close + 1).map(String::as_str) {
        Some("->") => canonical(&t[close + 2..])?,
        None => "void".to_owned(),
        Some(other) => return Err(format!("unexpected {other} after {name}'s parameters")),
    };
    Ok((name, Function { ret, params }))
}

/// Canonical types of `name: TYPE, ...`.
fn parameters(t: &[String]) -> Result<Vec<String>, String> {
    split_top_level(t)
        .iter()
        .map(|p| {
            let colon = p
                .iter()
                .position(|x| x == ":")
                .ok_or_else(|| format!("parameter without type: {}", p.join(" ")))?;
            canonical(&p[colon + 1..])
        })
        .collect()
}

/// `pub NAME: TYPE, ...` of a struct body.
fn parse_fields(t: &[String]) -> Result<Vec<(String, String)>, String> {
    split_top_level(t)
        .iter()
        .map(|f| {
            let colon = f
                .iter()
                .position(|x| x == ":")
                .ok_or("field without type")?;
            let name = f[colon - 1].clone();
            Ok((name, canonical(&f[colon + 1..])?))
        })
        .collect()
}

/// The canonical form of a Rust FFI type, e.g. `*const c_char` ->
/// `*c char`, `Option<unsafe extern "C" fn(x: *mut c_void)>` ->
/// `fn(*m void) -> void`.
pub fn canonical(t: &[String]) -> Result<String, String> {
    match t.first().map(String::as_str) {
        Some("*") => {
            let q = match t.get(1).map(String::as_str) {
                Some("const") => "c",
                Some("mut") => "m",
                _ => return Err(format!("pointer without const/mut: {}", t.join(" "))),
            };
            Ok(format!("*{q} {}", canonical(&t[2..])?))
        }
        Some("Option") => {
            // Option < unsafe extern "C" fn ( PARAMS ) [-> RET] >
            let close_angle = t.len() - 1;
            let mut inner = &t[2..close_angle];
            // A trailing comma, as rustfmt writes long ones.
            if inner.last().map(String::as_str) == Some(",") {
                inner = &inner[..inner.len() - 1];
            }
            let open = inner
                .iter()
                .position(|x| x == "(")
                .ok_or("Option without fn")?;
            if inner[..open].join(" ") != "unsafe extern \"C\" fn" {
                return Err(format!(
                    "nullable function pointers are Option<unsafe extern \"C\" fn>: {}",
                    t.join(" ")
                ));
            }
            let close = closing(inner, open);
            let params = parameters(&inner[open + 1..close])?;
            let ret = match inner.get(close + 1).map(String::as_str) {
                Some("->") => canonical(&inner[close + 2..])?,
                _ => "void".to_owned(),
            };
            Ok(format!("fn({}) -> {}", params.join(", "), ret))
        }
        Some(name) if t.len() == 1 => scalar(name),
        _ => Err(format!("no canonical form for Rust type {}", t.join(" "))),
    }
}

fn scalar(name: &str) -> Result<String, String> {
    Ok(match name {
        "c_void" => "void",
        "c_char" => "char",
        "c_int" => "int",
        "c_uint" => "uint",
        "usize" => "usize",
        "i64" => "i64",
        "u8" => "u8",
        "f64" => "f64",
        _ if name.starts_with("handoff_") => name,
        _ => {
            return Err(format!(
                "no canonical form for Rust type {name:?}: teach tests/decls/rust.rs"
            ))
        }
    }
    .to_owned())
}
