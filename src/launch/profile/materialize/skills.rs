//! Skill folder names: a display name becomes one directory
//! name that is safe on POSIX and Windows — no separators, no reserved
//! device names, no trailing dots or spaces, bounded length — and distinct
//! from its siblings even on case-insensitive file systems.

use std::collections::HashSet;

const MAX_LEN: usize = 64;
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// One safe directory name for `display`.
pub fn safe_dir_name(display: &str) -> String {
    let mut name = String::new();
    for character in display.chars() {
        let keep = character.is_alphanumeric() || matches!(character, '-' | '_' | '.' | ' ');
        let next = if keep && !character.is_control() {
            character
        } else {
            '-'
        };
        if next == '-' && name.ends_with('-') {
            continue;
        }
        name.push(next);
    }
    let mut name: String = name
        .trim_matches(|character: char| character == '.' || character == ' ' || character == '-')
        .to_owned();
    if name.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
        name = name.trim_end_matches(['.', ' ', '-']).to_owned();
    }
    if name.is_empty() {
        name = "skill".to_owned();
    }
    let stem = name
        .split('.')
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_ascii_uppercase();
    if RESERVED.contains(&stem.as_str()) {
        name.insert(0, '_');
    }
    name
}

/// Safe names for all skills in order, collisions suffixed `-2`, `-3`, …
pub fn assign_dir_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = HashSet::new();
    names
        .into_iter()
        .map(|display| {
            let base = safe_dir_name(display);
            let mut candidate = base.clone();
            let mut counter = 2;
            while !taken.insert(candidate.to_lowercase()) {
                let suffix = format!("-{counter}");
                let mut stem = base.clone();
                while stem.len() + suffix.len() > MAX_LEN {
                    stem.pop();
                }
                candidate = format!("{stem}{suffix}");
                counter += 1;
            }
            candidate
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn assert_safe(name: &str) {
        assert!(!name.is_empty());
        assert!(name.len() <= MAX_LEN, "{name}");
        assert!(
            !name.contains(['/', '\\', ':', '*', '?', '"', '<', '>', '|', '\0']),
            "{name}"
        );
        assert!(!name.ends_with('.') && !name.ends_with(' '), "{name:?}");
        assert!(name != "." && name != "..");
        let stem = name
            .split('.')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        assert!(!RESERVED.contains(&stem.trim_end()), "{name}");
    }

    #[test]
    fn hostile_names_become_safe_and_distinct() {
        let long = "x".repeat(300);
        let inputs = [
            "../evil",
            "CON",
            "aux.txt",
            "name.",
            "name ",
            "a/b",
            "a\\b",
            "",
            long.as_str(),
            "Code Review",
            "code review",
        ];
        let names = assign_dir_names(inputs.iter().copied());
        for name in &names {
            assert_safe(name);
        }
        let unique: HashSet<String> = names.iter().map(|name| name.to_lowercase()).collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert_eq!(names[0], "evil");
        assert_eq!(names[1], "_CON");
        assert_eq!(names[2], "_aux.txt");
        assert_eq!(names[3], "name");
        assert_eq!(names[4], "name-2");
        assert_eq!(names[5], "a-b");
        assert_eq!(names[6], "a-b-2");
        assert_eq!(names[7], "skill");
        assert_eq!(names[8].len(), 64);
        assert_eq!(names[9], "Code Review");
        assert_eq!(names[10], "code review-2");
    }

    proptest! {
        #[test]
        fn any_name_is_safe(names in proptest::collection::vec(any::<String>(), 1..8)) {
            let assigned = assign_dir_names(names.iter().map(String::as_str));
            let unique: HashSet<String> = assigned.iter().map(|name| name.to_lowercase()).collect();
            prop_assert_eq!(unique.len(), assigned.len());
            for name in &assigned {
                assert_safe(name);
            }
        }
    }
}
