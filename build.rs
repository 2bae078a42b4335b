//! Lists, at build time, what the data and folders hold so that no generic
//! source names an adapter: the built-in adapter files (`manifests/
//! builtin.txt`, in its order, each `manifests/<name>.yaml`) and the
//! protocol quirk modules (`src/acp/quirks/<name>.rs`).

// A build script has no fs-err (not a build dependency): every panic below
// names its path itself.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::Path;

fn stems(dir: &str, extension: &str) -> Vec<String> {
    println!("cargo:rerun-if-changed={dir}");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("read {dir}: {error}"))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == extension)
                .then(|| path.file_stem()?.to_str().map(str::to_owned))
                .flatten()
        })
        .filter(|name| name != "mod" && !name.ends_with("_tests"))
        .collect();
    names.sort();
    names
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let mut builtin = String::from("&[\n");
    println!("cargo:rerun-if-changed=manifests/builtin.txt");
    let list = std::fs::read_to_string("manifests/builtin.txt").expect("manifests/builtin.txt");
    let names = list
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    let names: Vec<&str> = names.collect();
    for file in stems("manifests", "yaml") {
        assert!(
            names.contains(&file.as_str()),
            "manifests/{file}.yaml is not listed in manifests/builtin.txt"
        );
    }
    for name in names {
        let path = Path::new(&root)
            .join("manifests")
            .join(format!("{name}.yaml"));
        assert!(
            path.is_file(),
            "manifests/builtin.txt names {name}, but {} is missing",
            path.display()
        );
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            builtin,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("write");
    }
    builtin.push_str("]\n");
    std::fs::write(Path::new(&out).join("builtin_adapters.rs"), builtin)
        .expect("write $OUT_DIR/builtin_adapters.rs");

    let mut quirks = String::from("&[\"none\"");
    for name in stems("src/acp/quirks", "rs") {
        write!(quirks, ", {name:?}").expect("write");
    }
    quirks.push_str("]\n");
    std::fs::write(Path::new(&out).join("quirk_sets.rs"), quirks)
        .expect("write $OUT_DIR/quirk_sets.rs");
}
