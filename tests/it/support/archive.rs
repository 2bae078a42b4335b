//! Kiro-like artifacts generated inside the tests, in the four archive
//! formats the installer supports, plus hostile variants. Tar headers are
//! written field by field so names and link targets the `tar` crate would
//! refuse (`../evil`, absolute paths) still reach the installer.

use std::io::{Cursor, Write};

/// An archive format as the manifest names it (`fileType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    TarGz,
    TarXz,
    TarZst,
    Zip,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::TarGz, Format::TarXz, Format::TarZst, Format::Zip];

    /// The manifest's `fileType`.
    pub fn file_type(self) -> &'static str {
        match self {
            Format::TarGz => "tarGz",
            Format::TarXz => "tarXz",
            Format::TarZst => "tarZst",
            Format::Zip => "zip",
        }
    }

    /// File name extension of the download.
    pub fn extension(self) -> &'static str {
        match self {
            Format::TarGz => "tar.gz",
            Format::TarXz => "tar.xz",
            Format::TarZst => "tar.zst",
            Format::Zip => "zip",
        }
    }
}

/// One archive member. Paths and targets are written exactly as given.
#[derive(Debug, Clone)]
pub enum Entry {
    File {
        path: String,
        mode: u32,
        data: Vec<u8>,
    },
    Dir {
        path: String,
    },
    Symlink {
        path: String,
        target: String,
    },
    HardLink {
        path: String,
        target: String,
    },
    Fifo {
        path: String,
    },
    CharDevice {
        path: String,
    },
    /// A pax global extended header (type `g`) with no records: no file,
    /// but an entry the extraction counts.
    PaxGlobal {
        path: String,
    },
}

impl Entry {
    pub fn file(path: &str, mode: u32, data: impl Into<Vec<u8>>) -> Entry {
        Entry::File {
            path: path.to_owned(),
            mode,
            data: data.into(),
        }
    }

    pub fn dir(path: &str) -> Entry {
        Entry::Dir {
            path: path.to_owned(),
        }
    }

    pub fn symlink(path: &str, target: &str) -> Entry {
        Entry::Symlink {
            path: path.to_owned(),
            target: target.to_owned(),
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Entry::File { path, .. }
            | Entry::Dir { path }
            | Entry::Symlink { path, .. }
            | Entry::HardLink { path, .. }
            | Entry::Fifo { path }
            | Entry::CharDevice { path }
            | Entry::PaxGlobal { path } => path,
        }
    }
}

/// The tiny shell script packed as `kiro-cli`: it answers both probes the
/// way the real binary does.
pub fn kiro_script(version: &str) -> String {
    format!(
        "#!/bin/sh\n\
         case \"$1\" in\n\
         \x20 --version|-V) echo \"kiro-cli {version}\"; exit 0 ;;\n\
         \x20 acp) echo \"Usage: kiro-cli acp [OPTIONS]\"; exit 0 ;;\n\
         \x20 *) exit 0 ;;\n\
         esac\n"
    )
}

/// The members of a Kiro Linux archive: `kirocli/bin/kiro-cli`,
/// `kirocli/bin/kiro-cli-chat` and `kirocli/install.sh`.
pub fn kiro_entries(version: &str) -> Vec<Entry> {
    vec![
        Entry::dir("kirocli/"),
        Entry::dir("kirocli/bin/"),
        Entry::file("kirocli/bin/kiro-cli", 0o755, kiro_script(version)),
        Entry::file(
            "kirocli/bin/kiro-cli-chat",
            0o755,
            format!("#!/bin/sh\necho \"kiro-cli-chat {version}\"\n"),
        ),
        Entry::file(
            "kirocli/install.sh",
            0o755,
            "#!/bin/sh\necho 'the real installer copies kirocli/bin into ~/.local/bin'\n",
        ),
    ]
}

/// A Kiro archive followed by `size` bytes of incompressible data, so a
/// download can be stopped half-way while the first members are already
/// extracted.
pub fn kiro_entries_with_padding(version: &str, size: usize) -> Vec<Entry> {
    let mut entries = kiro_entries(version);
    entries.push(Entry::dir("kirocli/share/"));
    entries.push(Entry::file(
        "kirocli/share/padding.bin",
        0o644,
        noise(size, 0x9e37_79b9_7f4a_7c15),
    ));
    entries
}

/// Deterministic incompressible bytes (xorshift64*).
pub fn noise(size: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut bytes = Vec::with_capacity(size + 8);
    while bytes.len() < size {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        bytes.extend_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    bytes.truncate(size);
    bytes
}

/// Packs `entries` in `format`.
pub fn pack(format: Format, entries: &[Entry]) -> Vec<u8> {
    match format {
        Format::TarGz => gzip(&tar(entries)),
        Format::TarXz => xz(&tar(entries)),
        Format::TarZst => zstd(&tar(entries)),
        Format::Zip => zip(entries),
    }
}

/// A Kiro archive of `version` in `format`.
pub fn kiro_archive(format: Format, version: &str) -> Vec<u8> {
    pack(format, &kiro_entries(version))
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).expect("gzip");
    encoder.finish().expect("gzip")
}

pub fn xz(data: &[u8]) -> Vec<u8> {
    let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), 1);
    encoder.write_all(data).expect("xz");
    encoder.finish().expect("xz")
}

pub fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 3).expect("zstd")
}

/// An uncompressed tar stream with GNU headers whose name and link fields
/// are filled in byte for byte.
pub fn tar(entries: &[Entry]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(1_700_000_000);
        header.set_uid(0);
        header.set_gid(0);
        let (kind, mode, data, link): (tar::EntryType, u32, &[u8], Option<&str>) = match entry {
            Entry::File { mode, data, .. } => (tar::EntryType::Regular, *mode, data, None),
            Entry::Dir { .. } => (tar::EntryType::Directory, 0o755, &[], None),
            Entry::Symlink { target, .. } => (tar::EntryType::Symlink, 0o777, &[], Some(target)),
            Entry::HardLink { target, .. } => (tar::EntryType::Link, 0o644, &[], Some(target)),
            Entry::Fifo { .. } => (tar::EntryType::Fifo, 0o644, &[], None),
            Entry::CharDevice { .. } => (tar::EntryType::Char, 0o644, &[], None),
            Entry::PaxGlobal { .. } => (tar::EntryType::XGlobalHeader, 0o644, &[], None),
        };
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(data.len() as u64);
        if let Entry::CharDevice { .. } = entry {
            // 1:3 is /dev/null's device number: harmless if it were created.
            header.set_device_major(1).expect("device major");
            header.set_device_minor(3).expect("device minor");
        }
        let gnu = header.as_gnu_mut().expect("gnu header");
        copy_field(&mut gnu.name, entry.path());
        if let Some(link) = link {
            copy_field(&mut gnu.linkname, link);
        }
        header.set_cksum();
        builder.append(&header, data).expect("append tar entry");
    }
    builder.into_inner().expect("finish tar")
}

fn copy_field(field: &mut [u8; 100], text: &str) {
    let bytes = text.as_bytes();
    assert!(
        bytes.len() < field.len(),
        "tar name field too short for {text:?}"
    );
    field.fill(0);
    field[..bytes.len()].copy_from_slice(bytes);
}

/// A zip archive. Duplicate names, which the `zip` writer refuses, are
/// written under a placeholder of the same length and patched afterwards
/// (the CRC covers the data, not the name).
pub fn zip(entries: &[Entry]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut seen = std::collections::HashSet::new();
    let mut patches: Vec<(String, String)> = Vec::new();
    for entry in entries {
        let mut name = entry.path().to_owned();
        if !seen.insert(name.clone()) {
            let placeholder: String = format!("#dup{}#", patches.len())
                .chars()
                .chain(std::iter::repeat('#'))
                .take(name.len())
                .collect();
            assert_eq!(placeholder.len(), name.len(), "name too short to patch");
            patches.push((placeholder.clone(), name));
            name = placeholder;
        }
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip::DateTime::default());
        match entry {
            Entry::File { mode, data, .. } => {
                writer
                    .start_file(name, options.unix_permissions(*mode))
                    .expect("zip file");
                writer.write_all(data).expect("zip data");
            }
            Entry::Dir { .. } => writer
                .add_directory(name, options.unix_permissions(0o755))
                .expect("zip dir"),
            Entry::Symlink { target, .. } => writer
                .add_symlink(name, target, options)
                .expect("zip symlink"),
            other => panic!("zip cannot express {other:?}"),
        }
    }
    let mut bytes = writer.finish().expect("finish zip").into_inner();
    for (placeholder, name) in patches {
        replace_all(&mut bytes, placeholder.as_bytes(), name.as_bytes());
    }
    bytes
}

fn replace_all(haystack: &mut [u8], from: &[u8], to: &[u8]) {
    let mut index = 0;
    let mut replaced = 0;
    while index + from.len() <= haystack.len() {
        if &haystack[index..index + from.len()] == from {
            haystack[index..index + from.len()].copy_from_slice(to);
            replaced += 1;
            index += from.len();
        } else {
            index += 1;
        }
    }
    // Once in the local header, once in the central directory.
    assert_eq!(replaced, 2, "expected to patch a local and a central name");
}

/// Hostile archives: each is a Kiro archive with one thing added that the
/// installer must refuse. Every file an attack would create is named
/// `marker…` (unique per test) so a test can search for it; `outside` is an
/// absolute folder outside every managed path that holds a file `secret`.
pub struct Hostile {
    pub name: &'static str,
    pub entries: Vec<Entry>,
    /// The offending entry's name up to its first control character: a
    /// clear refusal names it.
    pub offender: String,
}

fn with_kiro(version: &str, name: &'static str, extra: Vec<Entry>) -> Hostile {
    let offender = extra
        .first()
        .map(|entry| {
            entry
                .path()
                .chars()
                .take_while(|c| !c.is_control())
                .collect()
        })
        .unwrap_or_default();
    let mut entries = kiro_entries(version);
    entries.extend(extra);
    Hostile {
        name,
        entries,
        offender,
    }
}

pub fn hostile_tar_cases(version: &str, marker: &str, outside: &str) -> Vec<Hostile> {
    let file = |path: String| Entry::file(&path, 0o644, "evil");
    vec![
        with_kiro(
            version,
            "parent-dir",
            vec![file(format!("../{marker}-up1"))],
        ),
        with_kiro(
            version,
            "parent-dir-deep",
            vec![file(format!("../../../../../{marker}-up5"))],
        ),
        with_kiro(
            version,
            "parent-dir-inside",
            vec![file(format!("kirocli/../../{marker}-inner"))],
        ),
        with_kiro(
            version,
            "absolute",
            vec![file(format!("{outside}/{marker}-absolute"))],
        ),
        with_kiro(
            version,
            "symlink-outside",
            vec![Entry::symlink("kirocli/bin/link", "../../../outside")],
        ),
        with_kiro(
            version,
            "symlink-absolute-then-write-through",
            vec![
                Entry::symlink("kirocli/escape", outside),
                file(format!("kirocli/escape/{marker}-through")),
            ],
        ),
        with_kiro(
            version,
            "hard-link-outside",
            vec![Entry::HardLink {
                path: format!("kirocli/bin/{marker}-hard"),
                target: format!("{outside}/secret"),
            }],
        ),
        with_kiro(
            version,
            "hard-link-inside",
            vec![Entry::HardLink {
                path: format!("kirocli/bin/{marker}-hard"),
                target: "kirocli/bin/kiro-cli".to_owned(),
            }],
        ),
        with_kiro(
            version,
            "fifo",
            vec![Entry::Fifo {
                path: format!("kirocli/bin/{marker}-fifo"),
            }],
        ),
        with_kiro(
            version,
            "char-device",
            vec![Entry::CharDevice {
                path: format!("kirocli/bin/{marker}-null"),
            }],
        ),
        with_kiro(
            version,
            "duplicate",
            vec![Entry::file(
                "kirocli/bin/kiro-cli",
                0o755,
                "#!/bin/sh\necho 'kiro-cli 6.6.6'\n",
            )],
        ),
        with_kiro(
            version,
            "control-character",
            vec![file(format!("kirocli/bin/{marker}\u{1b}[2J"))],
        ),
        // Each link looks inside on its own; together they climb out
        // (`kirocli/l` is the folder itself, so `l/l/../../..` is three up).
        with_kiro(
            version,
            "symlink-chain",
            vec![
                Entry::symlink("kirocli/esc", "l/l/../../.."),
                Entry::symlink("kirocli/l", "."),
            ],
        ),
        // A file where an earlier entry implied a folder.
        Hostile {
            name: "clash-with-implied-folder",
            entries: {
                let mut entries = kiro_entries(version);
                entries.push(Entry::file("kirocli/x/y", 0o644, "y"));
                entries.push(Entry::file("kirocli/x", 0o644, "x"));
                entries
            },
            offender: "kirocli/x".to_owned(),
        },
    ]
}

pub fn hostile_zip_cases(version: &str, marker: &str, outside: &str) -> Vec<Hostile> {
    let file = |path: String| Entry::file(&path, 0o644, "evil");
    vec![
        with_kiro(
            version,
            "parent-dir",
            vec![file(format!("../{marker}-up1"))],
        ),
        with_kiro(
            version,
            "parent-dir-deep",
            vec![file(format!("../../../../../{marker}-up5"))],
        ),
        with_kiro(
            version,
            "absolute",
            vec![file(format!("{outside}/{marker}-absolute"))],
        ),
        with_kiro(
            version,
            "symlink-outside",
            vec![Entry::symlink("kirocli/bin/link", "../../../outside")],
        ),
        with_kiro(
            version,
            "duplicate",
            vec![Entry::file(
                "kirocli/bin/kiro-cli",
                0o755,
                "#!/bin/sh\necho 'kiro-cli 6.6.6'\n",
            )],
        ),
    ]
}

/// A small archive that unpacks far past 8 × its own size: a Kiro archive
/// plus `zeros` bytes of zeros.
pub fn bomb(format: Format, version: &str, zeros: usize) -> Vec<u8> {
    let mut entries = kiro_entries(version);
    entries.push(Entry::file("kirocli/bin/zeros", 0o644, vec![0u8; zeros]));
    pack(format, &entries)
}
