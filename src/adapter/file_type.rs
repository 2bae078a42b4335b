//! The adapter data's `fileType` as a type: the four archive
//! formats oneworks installs, the package formats it only selects (`dmg`,
//! `msi`, …), and any value a newer manifest may bring, kept as text. Plain
//! data: how to unpack one is the installer's business (`install::extract::format`).

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FileType {
    TarGz,
    TarXz,
    TarZst,
    Zip,
    Rpm,
    Deb,
    AppImage,
    Dmg,
    Msi,
    /// A `fileType` this oneworks does not know (never installed).
    Other(String),
}

impl FileType {
    /// Every format this oneworks knows, in the manifest's spelling.
    pub const KNOWN: [&'static str; 9] = [
        "tarGz", "tarXz", "tarZst", "zip", "rpm", "deb", "appImage", "dmg", "msi",
    ];

    pub fn parse(text: &str) -> Self {
        match text {
            "tarGz" => FileType::TarGz,
            "tarXz" => FileType::TarXz,
            "tarZst" => FileType::TarZst,
            "zip" => FileType::Zip,
            "rpm" => FileType::Rpm,
            "deb" => FileType::Deb,
            "appImage" => FileType::AppImage,
            "dmg" => FileType::Dmg,
            "msi" => FileType::Msi,
            other => FileType::Other(other.to_owned()),
        }
    }

    /// The manifest's spelling.
    pub fn as_str(&self) -> &str {
        match self {
            FileType::TarGz => "tarGz",
            FileType::TarXz => "tarXz",
            FileType::TarZst => "tarZst",
            FileType::Zip => "zip",
            FileType::Rpm => "rpm",
            FileType::Deb => "deb",
            FileType::AppImage => "appImage",
            FileType::Dmg => "dmg",
            FileType::Msi => "msi",
            FileType::Other(other) => other,
        }
    }
}

impl From<String> for FileType {
    fn from(text: String) -> Self {
        FileType::parse(&text)
    }
}

impl From<FileType> for String {
    fn from(file_type: FileType) -> Self {
        file_type.as_str().to_owned()
    }
}

impl fmt::Display for FileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::output::sanitize::sanitize(self.as_str()).as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_spelling_round_trips() {
        for text in FileType::KNOWN {
            let parsed = FileType::parse(text);
            assert!(!matches!(parsed, FileType::Other(_)), "{text}");
            assert_eq!(parsed.as_str(), text);
        }
        assert_eq!(
            FileType::parse("tarBz2"),
            FileType::Other("tarBz2".to_owned())
        );
    }
}
