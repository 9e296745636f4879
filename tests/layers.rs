//! The import rules of docs/architecture.md ("Who imports what"), checked on the source.
//!
//! A scanner reads every file of `src/` (comments, string and character literals blanked,
//! `#[cfg(test)]` items and test-only module files left out: tests may import anything) and
//! collects, per top-level module, the other top-level modules it names: `crate::x` paths, `use
//! crate::{x, y}` groups, `super::` chains that climb out of the module, exported macros (named
//! or bare) and the crate root's re-exports of `warpjit_runtime` (`runtime`); the binary
//! `src/main.rs` names them as `warpjit::x`. Then:
//!
//! - [`the_import_table_is_the_code`]: each module's imports are exactly the ones its row of the
//!   table lists (so the table stays true);
//! - [`the_layer_rules_hold`]: the rules the table states: the engines (`interp`, `jit`) do not
//!   import each other; the core (`exec`) and the layers below it import no engine and nothing
//!   of the reference layer's users; the front-ends import no engine and nothing of execution;
//!   no module but the command line (and the tests and test harness) imports `interp`; the
//!   modules form no cycle;
//! - [`the_runtime_crate_imports_nothing_of_warpjit`]: its `Cargo.toml` and its sources;
//! - [`no_cycles_inside_jit_and_sass`]: the files of `jit` and `sass` form no import cycle;
//! - the scanner's own tests show that each rule fails on a forbidden edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

const ENGINES: &[&str] = &["interp", "jit"];
/// The engine-neutral core and what it stands on.
const CORE: &[&str] = &["exec", "reference", "semantics", "analysis", "ir", "diag"];
/// The front-ends and their boundary.
const FRONT_ENDS: &[&str] = &["sass", "maxwell", "cubin", "dxbc", "frontend"];
/// Modules allowed to import `interp`: the command line (`main`) and the test harness.
const INTERP_USERS: &[&str] = &["main", "testgen"];

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` with comments, string literals and character literals replaced by spaces (newlines
/// kept, so that offsets and lines do not move).
fn strip(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev_ident = i > 0 && is_ident(b[i - 1]);
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        if !prev_ident && (c == 'r' || (c == 'b' && b.get(i + 1) == Some(&'r'))) {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                let close: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let mut k = j + 1;
                while k < b.len() && !b[k..].starts_with(&close) {
                    k += 1;
                }
                let end = (k + close.len()).min(b.len());
                for &ch in &b[i..end] {
                    blank(&mut out, ch);
                }
                i = end;
                continue;
            }
        }
        if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            if i < b.len() {
                blank(&mut out, b[i]);
                i += 1;
            }
            continue;
        }
        if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if b.get(i + 1) == Some(&'\\') {
                (i + 3..b.len().min(i + 12)).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(e) = end {
                for &ch in &b[i..=e] {
                    blank(&mut out, ch);
                }
                i = e + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The end (exclusive) of the item starting at `from`: its first `;` outside brackets, or its
/// first `{ .. }` block at depth 0, whichever comes first.
fn item_end(b: &[char], from: usize) -> usize {
    let mut depth = 0i32;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ';' if depth == 0 => return i + 1,
            '{' if depth == 0 => {
                let mut d = 0;
                while i < b.len() {
                    match b[i] {
                        '{' => d += 1,
                        '}' => {
                            d -= 1;
                            if d == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return b.len();
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Stripped `text` without its `#[cfg(test)]` items, and the names of the test-only modules it
/// declares in files (`#[cfg(test)] mod x;`).
fn without_tests(text: &str) -> (String, Vec<String>) {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut i = 0;
    const MARK: &str = "#[cfg(test)]";
    let mark: Vec<char> = MARK.chars().collect();
    while i < b.len() {
        if b[i..].starts_with(&mark) {
            let mut j = i + mark.len();
            // Further attributes of the same item.
            loop {
                while j < b.len() && b[j].is_whitespace() {
                    j += 1;
                }
                if b.get(j) == Some(&'#') {
                    j = item_end_attr(&b, j);
                } else {
                    break;
                }
            }
            let end = item_end(&b, j);
            let item: String = b[j..end].iter().collect();
            let words: Vec<&str> = item
                .split(|c: char| !is_ident(c))
                .filter(|w| !w.is_empty())
                .collect();
            if let [.., "mod", name] = words.as_slice() {
                if item.trim_end().ends_with(';') {
                    test_mods.push(name.to_string());
                }
            }
            i = end;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    (out, test_mods)
}

/// The end of the attribute `#[..]` starting at `from`.
fn item_end_attr(b: &[char], from: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// What the scanner knows of the crate's names.
struct Names {
    /// The top-level modules.
    modules: BTreeSet<String>,
    /// Exported macros and the module that defines each.
    macros: BTreeMap<String, String>,
    /// Names the crate root re-exports from `warpjit_runtime` (`runtime` included).
    runtime: BTreeSet<String>,
}

/// The paths `text` (stripped, of a file at module path `at`) names, each as its first two
/// segments from the crate root (`["jit", "abi"]`; a root name alone for a root item).
/// `prefix` is how the file names the crate: `crate` in the library, `warpjit` in the binary.
fn paths(text: &str, at: &[String], prefix: &str) -> Vec<Vec<String>> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i]) || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let word: String = b[start..i].iter().collect();
        // Not a path of ours when preceded by `::` (a path inside another path).
        let after_colons = start >= 2 && b[start - 1] == ':' && b[start - 2] == ':';
        if after_colons || !(word == prefix || word == "crate" || word == "super") {
            continue;
        }
        if word == "crate" && prefix != "crate" {
            continue;
        }
        // Collect `seg::seg::...` or `...::{group}`.
        let mut base: Vec<String> = if word == "super" {
            at[..at.len().saturating_sub(1)].to_vec()
        } else {
            Vec::new()
        };
        let mut j = i;
        let mut segs: Vec<String> = Vec::new();
        loop {
            if !(b.get(j) == Some(&':') && b.get(j + 1) == Some(&':')) {
                break;
            }
            j += 2;
            while b.get(j).is_some_and(|c| c.is_whitespace()) {
                j += 1;
            }
            if b.get(j) == Some(&'{') {
                // A group: each member's first segments.
                let end = item_end(&b, j);
                let inner: String = b[j + 1..end - 1].iter().collect();
                let mut depth = 0;
                let mut member = String::new();
                let mut members = Vec::new();
                for c in inner.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            members.push(std::mem::take(&mut member));
                            continue;
                        }
                        _ => {}
                    }
                    member.push(c);
                }
                members.push(member);
                for m in members {
                    let words: Vec<String> = m
                        .split(|c: char| !is_ident(c))
                        .filter(|w| !w.is_empty())
                        .take(2)
                        .map(str::to_string)
                        .collect();
                    if words.is_empty() || words[0] == "self" {
                        if !segs.is_empty() || !base.is_empty() {
                            let mut p = base.clone();
                            p.extend(segs.iter().cloned());
                            out.push(p);
                        }
                        continue;
                    }
                    let mut p = base.clone();
                    p.extend(segs.iter().cloned());
                    p.extend(words);
                    out.push(p);
                }
                segs.clear();
                base.clear();
                j = end;
                break;
            }
            let s = j;
            while b.get(j).is_some_and(|&c| is_ident(c)) {
                j += 1;
            }
            let seg: String = b[s..j].iter().collect();
            if seg == "super" && segs.is_empty() {
                base.pop();
                continue;
            }
            segs.push(seg);
        }
        if !segs.is_empty() {
            let mut p = base;
            p.extend(segs);
            out.push(p);
        }
        i = j.max(i);
    }
    for p in &mut out {
        p.truncate(2);
    }
    out
}

/// One source file: its module path from the crate root and its text without tests.
struct File {
    at: Vec<String>,
    text: String,
    path: PathBuf,
}

/// Every non-test file of the library under `src` (module paths from the file names), and the
/// binary's `main.rs` as module `main`.
fn files(src: &Path) -> Vec<File> {
    fn walk(dir: &Path, at: &[String], out: &mut Vec<(PathBuf, Vec<String>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("src is readable")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut a = at.to_vec();
                a.push(name);
                walk(&p, &a, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let mut a = at.to_vec();
                if !(name == "mod" || (at.is_empty() && name == "lib")) {
                    a.push(name);
                }
                out.push((p, a));
            }
        }
    }
    let mut raw = Vec::new();
    walk(src, &[], &mut raw);
    // The binary's own modules (`mod x;` in main.rs) are part of `main`.
    let main = strip(&std::fs::read_to_string(src.join("main.rs")).expect("src/main.rs"));
    let bin_mods: Vec<String> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .map(|m| m.trim().to_string())
        .collect();
    for (_, at) in &mut raw {
        if at.first().is_some_and(|m| bin_mods.contains(m)) {
            *at = vec!["main".to_string()];
        }
    }
    let mut test_only: Vec<Vec<String>> = Vec::new();
    let mut out = Vec::new();
    for (path, at) in raw {
        let text = std::fs::read_to_string(&path).expect("a source file");
        let (text, tests) = without_tests(&strip(&text));
        let is_main = at == ["main"];
        for t in tests {
            let mut m = if is_main { Vec::new() } else { at.clone() };
            m.push(t);
            test_only.push(m);
        }
        out.push(File { at, text, path });
    }
    out.retain(|f| !test_only.iter().any(|t| f.at.starts_with(t)));
    out
}

/// What the crate root defines that the scanner must resolve: modules, exported macros,
/// re-exports of the runtime.
fn names(files: &[File]) -> Names {
    let mut modules = BTreeSet::new();
    let mut macros = BTreeMap::new();
    let mut runtime = BTreeSet::from(["runtime".to_string()]);
    for f in files {
        if let Some(top) = f.at.first() {
            if f.at != ["main"] {
                modules.insert(top.clone());
            }
        }
        let mut rest = f.text.as_str();
        while let Some(k) = rest.find("#[macro_export]") {
            rest = &rest[k..];
            if let Some(m) = rest.find("macro_rules!") {
                let name: String = rest[m + "macro_rules!".len()..]
                    .trim_start()
                    .chars()
                    .take_while(|&c| is_ident(c))
                    .collect();
                macros.insert(name, f.at.first().cloned().unwrap_or_default());
            }
            rest = &rest[1..];
        }
        if f.at.is_empty() {
            // `pub use warpjit_runtime::{A, B};` at the root.
            if let Some(k) = f.text.find("pub use warpjit_runtime::{") {
                let s = &f.text[k + "pub use warpjit_runtime::{".len()..];
                let s = &s[..s.find('}').unwrap_or(s.len())];
                for w in s.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty()) {
                    runtime.insert(w.to_string());
                }
            }
        }
    }
    Names {
        modules,
        macros,
        runtime,
    }
}

/// The top-level module a root path's first segment belongs to, if any (`Err` for a name the
/// scanner does not know).
fn owner(first: &str, names: &Names) -> Result<Option<String>, String> {
    if names.modules.contains(first) {
        return Ok(Some(first.to_string()));
    }
    if names.runtime.contains(first) {
        return Ok(Some("runtime".to_string()));
    }
    if let Some(m) = names.macros.get(first) {
        return Ok(Some(m.clone()));
    }
    Err(format!("a root path `{first}` the scanner cannot place"))
}

/// Whether `name` is a module of the binary (`src/cli/` or one of its files).
fn bin_module(name: &str) -> bool {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    name == "cli" || cli.join(format!("{name}.rs")).is_file()
}

/// The module graph at the top level: for each module, the others it names; errors name paths
/// the scanner could not place.
fn top_graph(files: &[File], names: &Names) -> (Graph, Vec<String>) {
    let mut g: Graph = names
        .modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    g.insert("main".into(), BTreeSet::new());
    let mut errors = Vec::new();
    for f in files {
        let Some(me) = f.at.first() else { continue };
        let prefix = if f.at == ["main"] { "warpjit" } else { "crate" };
        let at: &[String] = if f.at == ["main"] { &[] } else { &f.at };
        let mut found = BTreeSet::new();
        for p in paths(&f.text, at, prefix) {
            if let Some(first) = p.first() {
                match owner(first, names) {
                    Ok(Some(m)) => {
                        found.insert(m);
                    }
                    Ok(None) => {}
                    // The binary's own modules (`src/cli/`): `super::` and `crate::` paths
                    // inside the binary, which are no part of the library's graph.
                    Err(_) if f.at == ["main"] && bin_module(first) => {}
                    Err(e) => errors.push(format!("{}: {e}", f.path.display())),
                }
            }
        }
        // Exported macros invoked bare, and the runtime crate named directly.
        for (mac, m) in &names.macros {
            if f.text.contains(&format!("{mac}!")) {
                found.insert(m.clone());
            }
        }
        if f.text.contains("warpjit_runtime::") || f.text.contains("warpjit_runtime;") {
            found.insert("runtime".into());
        }
        found.remove(me);
        g.entry(me.clone()).or_default().extend(found);
    }
    (g, errors)
}

/// The graph between the files of module `top` (its children, `top::x` for `x.rs` with what is
/// under `x/`), each to the siblings it names. Items of `mod.rs` itself are no edge (every
/// child is declared there), except what it re-exports from a child (`pub use x::{a, b}`),
/// which counts as that child.
fn inner_graph(files: &[File], top: &str) -> Graph {
    let children: BTreeSet<String> = files
        .iter()
        .filter(|f| f.at.len() >= 2 && f.at[0] == top)
        .map(|f| f.at[1].clone())
        .collect();
    // Names `mod.rs` re-exports, by the child they come from.
    let mut reexported: BTreeMap<String, String> = BTreeMap::new();
    for f in files.iter().filter(|f| f.at == [top]) {
        for stmt in f.text.split(';') {
            let t = stmt.trim();
            let Some(k) = t.find("use ") else { continue };
            let body = t[k + 4..].trim();
            let Some((child, rest)) = body.split_once("::") else {
                continue;
            };
            if !children.contains(child) {
                continue;
            }
            for w in rest.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty()) {
                if w != "as" && w != "self" {
                    reexported.insert(w.to_string(), child.to_string());
                }
            }
        }
    }
    let mut g = Graph::new();
    for f in files.iter().filter(|f| f.at.len() >= 2 && f.at[0] == top) {
        let me = format!("{top}::{}", f.at[1]);
        let entry = g.entry(me.clone()).or_default();
        for p in paths(&f.text, &f.at, "crate") {
            if p.first().is_none_or(|t| t != top) {
                continue;
            }
            let to = match p.get(1) {
                Some(c) if children.contains(c) => format!("{top}::{c}"),
                Some(c) => match reexported.get(c) {
                    Some(child) => format!("{top}::{child}"),
                    None => continue,
                },
                None => continue,
            };
            if to != me {
                entry.insert(to);
            }
        }
    }
    g
}

/// A cycle of `g`, if it has one (as the list of its modules, the first repeated at the end).
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let k = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[k..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The rules of docs/architecture.md that do not depend on the table: each broken one, said.
fn rule_breaks(g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    let uses = |a: &str, b: &str| g.get(a).is_some_and(|s| s.contains(b));
    for &e in ENGINES {
        for &o in ENGINES {
            if e != o && uses(e, o) {
                out.push(format!("engine `{e}` imports engine `{o}`"));
            }
        }
    }
    for &c in CORE {
        for &e in ENGINES {
            if uses(c, e) {
                out.push(format!("core module `{c}` imports engine `{e}`"));
            }
        }
        for &f in FRONT_ENDS {
            if uses(c, f) {
                out.push(format!("core module `{c}` imports front-end `{f}`"));
            }
        }
    }
    if uses("exec", "reference") {
        out.push("the core `exec` imports the reference layer (it is handed a definition)".into());
    }
    for &f in FRONT_ENDS {
        for &e in ENGINES.iter().chain(&["exec", "reference"]) {
            if uses(f, e) {
                out.push(format!("front-end `{f}` imports `{e}`"));
            }
        }
    }
    for (m, to) in g {
        if to.contains("interp") && !INTERP_USERS.contains(&m.as_str()) {
            out.push(format!(
                "`{m}` imports `interp` (only the command line and the tests may)"
            ));
        }
    }
    if let Some(c) = cycle(g) {
        out.push(format!("an import cycle: {}", c.join(" -> ")));
    }
    out
}

/// The table "Who imports what" of docs/architecture.md: module → the modules its row lists
/// (the backticked names of its last column outside parentheses).
fn doc_table(doc: &str, names: &Names) -> Result<Graph, String> {
    let start = doc
        .find("## Who imports what")
        .ok_or("docs/architecture.md has no section \"Who imports what\"")?;
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |k| k + 3)];
    let mut g = Graph::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `module` | layer | imports |
        if cells.len() < 5 || !cells[1].starts_with('`') {
            continue;
        }
        let module = cells[1].trim_matches('`').to_string();
        let mut imports = String::new();
        let mut depth = 0;
        for c in cells[cells.len() - 2].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => imports.push(c),
                _ => {}
            }
        }
        let mut set = BTreeSet::new();
        for (k, part) in imports.split('`').enumerate() {
            if k % 2 == 1 {
                let first = part.split("::").next().unwrap_or(part);
                if first == "runtime" || names.modules.contains(first) {
                    set.insert(first.to_string());
                } else {
                    return Err(format!(
                        "the row of `{module}` names `{part}`, which is not a module"
                    ));
                }
            }
        }
        g.insert(module, set);
    }
    Ok(g)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn crate_graph() -> (Graph, Names) {
    let files = files(&root().join("src"));
    let names = names(&files);
    let (g, errors) = top_graph(&files, &names);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    (g, names)
}

/// Each module's imports are what its row of the table says, no more and no fewer, and every
/// module has a row.
#[test]
fn the_import_table_is_the_code() {
    let (g, names) = crate_graph();
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("the doc");
    let table = doc_table(&doc, &names).unwrap_or_else(|e| panic!("{e}"));
    let mut wrong = Vec::new();
    for (m, uses) in &g {
        match table.get(m) {
            None => wrong.push(format!("`{m}` has no row")),
            Some(t) if t != uses => wrong.push(format!(
                "`{m}`: the table says {t:?}, the code imports {uses:?}"
            )),
            Some(_) => {}
        }
    }
    for m in table.keys() {
        if m != "runtime" && !g.contains_key(m) {
            wrong.push(format!("the table's `{m}` is no module"));
        }
    }
    assert!(wrong.is_empty(), "{}\n{g:#?}", wrong.join("\n"));
}

#[test]
fn the_layer_rules_hold() {
    let (g, _) = crate_graph();
    let breaks = rule_breaks(&g);
    assert!(breaks.is_empty(), "{}\n{g:#?}", breaks.join("\n"));
}

#[test]
fn no_cycles_inside_jit_and_sass() {
    let files = files(&root().join("src"));
    for top in ["jit", "sass"] {
        let g = inner_graph(&files, top);
        assert!(g.len() > 5, "{top}: {g:?}");
        if let Some(c) = cycle(&g) {
            panic!("an import cycle inside `{top}`: {}", c.join(" -> "));
        }
    }
}

/// The runtime crate depends on nothing of warpjit (by Cargo it could not import the crate that
/// depends on it, but a path dependency on it, or on the CUDA crate, is refused here too).
#[test]
fn the_runtime_crate_imports_nothing_of_warpjit() {
    let manifest = std::fs::read_to_string(root().join("runtime/Cargo.toml")).expect("manifest");
    let mut section = "";
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            section = t;
            continue;
        }
        if section.contains("dependencies") {
            let name = t.split(['=', ' ', '.']).next().unwrap_or("");
            assert!(
                !name.starts_with("warpjit") && !t.contains("path = \".."),
                "runtime/Cargo.toml: {line}"
            );
        }
    }
    let mut stack = vec![root().join("runtime/src")];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("runtime/src") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                n += 1;
                let text = strip(&std::fs::read_to_string(&p).expect("a source file"));
                for w in ["warpjit::", "warpjit_cuda", "warpjit_runtime::"] {
                    assert!(!text.contains(w), "{} names `{w}`", p.display());
                }
            }
        }
    }
    assert!(n > 3, "the runtime's sources were found");
}

// The scanner's own tests: each rule fails on a forbidden edge.

fn file(at: &[&str], text: &str) -> File {
    File {
        at: at.iter().map(|s| s.to_string()).collect(),
        text: without_tests(&strip(text)).0,
        path: PathBuf::from(at.join("/")),
    }
}

fn tiny_crate(extra: Vec<File>) -> (Graph, Names) {
    let mut fs = vec![
        file(&[], "pub mod exec; pub mod interp; pub mod jit; pub mod ir; pub mod sass;\npub use warpjit_runtime::{Fault, WarpState};"),
        file(&["ir"], "#[macro_export]\nmacro_rules! for_each_op { () => {} }"),
        file(&["exec"], "use crate::ir::Inst;\nuse crate::Fault;"),
        file(&["interp"], "use crate::{exec::{self, Engine}, ir};"),
        file(&["jit"], "use crate::exec::Engine;\n// use crate::interp::Interp;\nconst S: &str = \"crate::interp::X\";\n#[cfg(test)]\nmod tests { use crate::interp::Interpreter; }"),
        file(&["jit", "codegen"], "use super::super::ir::Op;\ncrate::for_each_op!(lower);"),
        file(&["sass"], "use crate::ir::Op;"),
        file(&["main"], "use warpjit::jit::Jit;\nuse warpjit::interp::Interpreter;"),
    ];
    fs.extend(extra);
    let names = names(&fs);
    let (g, errors) = top_graph(&fs, &names);
    assert!(errors.is_empty(), "{errors:?}");
    (g, names)
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_scanner_reads_paths_groups_super_macros_and_skips_comments_strings_and_tests() {
    let (g, _) = tiny_crate(vec![]);
    assert_eq!(g["exec"], set(&["ir", "runtime"]));
    assert_eq!(g["interp"], set(&["exec", "ir"]));
    assert_eq!(g["jit"], set(&["exec", "ir"]), "super::super, the macro");
    assert_eq!(g["main"], set(&["interp", "jit"]));
    assert_eq!(g["sass"], set(&["ir"]));
    assert!(rule_breaks(&g).is_empty(), "{:?}", rule_breaks(&g));
}

#[test]
fn a_forbidden_edge_breaks_a_rule() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["jit", "abi"],
            "use crate::interp::exec_inst;",
            "engine `jit` imports engine `interp`",
        ),
        (
            &["exec", "step"],
            "fn f() { crate::interp::exec_inst(); }",
            "core module `exec` imports engine `interp`",
        ),
        (
            &["sass", "x"],
            "use crate::{ir, jit::Jit};",
            "front-end `sass` imports `jit`",
        ),
        (
            &["ir", "x"],
            "use super::super::sass::Op;",
            "core module `ir` imports front-end `sass`",
        ),
        (
            &["ir", "x"],
            "use crate::exec::Machine;\n",
            "an import cycle",
        ),
    ];
    for (at, text, want) in cases {
        let (g, _) = tiny_crate(vec![file(at, text)]);
        let breaks = rule_breaks(&g);
        assert!(
            breaks.iter().any(|b| b.contains(want)),
            "{text}: {breaks:?}"
        );
    }
    // `interp` from a module that is neither the command line nor the test harness.
    let (mut g, _) = tiny_crate(vec![]);
    g.insert("gentrace".into(), set(&["interp"]));
    assert!(rule_breaks(&g)
        .iter()
        .any(|b| b.contains("`gentrace` imports `interp`")));
}

#[test]
fn a_table_that_differs_from_the_code_is_found() {
    let (g, names) = tiny_crate(vec![]);
    let doc = "## Who imports what\n\n| module | layer | imports |\n|---|---|---|\n\
               | `exec` | core | `ir` (for `Inst`), `runtime` |\n\
               | `jit` | engine | `exec` |\n\n## Next\n";
    let t = doc_table(doc, &names).expect("parses");
    assert_eq!(t["exec"], g["exec"]);
    assert_ne!(t["jit"], g["jit"], "the row omits `ir`");
    let bad = "## Who imports what\n| `exec` | core | `Inst` |\n";
    assert!(doc_table(bad, &names).is_err());
}

#[test]
fn a_cycle_inside_a_module_is_found() {
    let mut fs = vec![
        file(
            &["jit"],
            "mod cache; mod tier; mod weight; pub use weight::{pieces, weight}; pub struct Jit;",
        ),
        file(&["jit", "cache"], "use super::tier::Tier;"),
        file(&["jit", "tier"], "use super::Jit;"),
        file(&["jit", "weight"], "pub fn pieces() {}"),
        file(&["jit", "compile"], "use crate::jit::{cache, tier::Tier};"),
    ];
    let g = inner_graph(&fs, "jit");
    assert_eq!(g["jit::compile"], set(&["jit::cache", "jit::tier"]));
    assert_eq!(g["jit::tier"], set(&[]), "mod.rs's own items are no edge");
    assert!(cycle(&g).is_none(), "{g:?}");
    // `weight` names `tier`, which names `pieces`, re-exported from `weight`.
    fs.push(file(&["jit", "weight", "x"], "use super::super::tier::T;"));
    fs.push(file(
        &["jit", "tier", "y"],
        "fn f() { crate::jit::pieces() }",
    ));
    let g = inner_graph(&fs, "jit");
    assert_eq!(g["jit::tier"], set(&["jit::weight"]));
    let c = cycle(&g).expect("jit::tier -> jit::weight -> jit::tier");
    assert_eq!(c.first(), c.last());
}
