//! `scripts/check-architecture` (run by CI) holds ARCHITECTURE.md against the code: here it
//! passes on the real document and fails, naming what is wrong, on copies of it with a row of
//! the code map taken out (a file's, a folder's) and with the root package, which knows the
//! wire, on the `wire-free:` line. It runs `cargo tree --offline`: no network, no build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn document() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md reads")
}

/// Run the script against `doc` (None: ARCHITECTURE.md itself): exit code, stdout, stderr.
fn check(name: &str, doc: Option<&str>) -> (i32, String, String) {
    let mut command = Command::new(root().join("scripts/check-architecture"));
    let mut copy = None;
    if let Some(doc) = doc {
        let dir = std::env::temp_dir().join(format!("dawgref-architecture-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path: PathBuf = dir.join("ARCHITECTURE.md");
        std::fs::write(&path, doc).unwrap();
        command.env("ARCHITECTURE_DOC", &path);
        copy = Some(dir);
    }
    let out = command.output().expect("the script runs");
    if let Some(dir) = copy {
        std::fs::remove_dir_all(dir).ok();
    }
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The document without the code map's row whose first column starts with `path`.
fn without_row(path: &str) -> String {
    let row = format!("| `{path}`");
    let doc = document();
    assert_eq!(doc.lines().filter(|l| l.starts_with(&row)).count(), 1, "one row for {path}");
    doc.lines().filter(|l| !l.starts_with(&row)).map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_document_agrees_with_the_code() {
    let (code, out, err) = check("real", None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    assert!(
        out.contains("cover every source file") && out.contains("wire-free crates reach no wire"),
        "{out}"
    );
}

#[test]
fn a_source_file_on_no_row_is_named() {
    let (code, _, err) = check("file", Some(&without_row("crates/tournament/src/draw.rs")));
    assert_eq!(code, 1);
    assert_eq!(err, "crates/tournament/src/draw.rs is on no row of ARCHITECTURE.md's code map\n");

    // A folder's row covers every file under it: without it, each is named.
    let folder = "crates/store/src/postgres/";
    let (code, _, err) = check("folder", Some(&without_row(folder)));
    assert_eq!(code, 1);
    let mut files: Vec<String> = std::fs::read_dir(root().join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".rs"))
        .map(|n| format!("{folder}{n} is on no row of ARCHITECTURE.md's code map"))
        .collect();
    files.sort();
    assert!(files.len() > 1);
    assert_eq!(err.lines().collect::<Vec<_>>(), files);
}

#[test]
fn a_wire_free_crate_that_reaches_the_wire_is_named_with_the_dependency() {
    let doc = document();
    let line = doc.lines().find(|l| l.starts_with("wire-free:")).expect("a wire-free line");
    let doc = doc.replace(line, "wire-free: dawgref-engine, dawgref, dawgref-nowhere");
    let (code, _, err) = check("wire", Some(&doc));
    assert_eq!(code, 1);
    assert!(err.contains("dawgref is wire-free in ARCHITECTURE.md but depends on tonic\n"), "{err}");
    assert!(
        err.contains("ARCHITECTURE.md's wire-free line names dawgref-nowhere, no workspace crate\n"),
        "{err}"
    );
    assert!(!err.contains("dawgref-engine"), "{err}");
}

#[test]
fn a_service_that_names_the_store_is_named() {
    let dir = std::env::temp_dir().join(format!("dawgref-architecture-services-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mod.rs"), "use crate::store::GameStore;\n").unwrap();
    std::fs::write(dir.join("listing.rs"), "// fine\nlet q = crate::store::GameQuery::default();\n").unwrap();
    let out =
        Command::new(root().join("scripts/check-architecture")).env("SERVICES_DIR", &dir).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let listing = dir.join("listing.rs");
    assert_eq!(
        err,
        format!(
            "{}:2: the services name the store's crate outside src/server/mod.rs (take it through the host)\n",
            listing.display()
        )
    );
}
