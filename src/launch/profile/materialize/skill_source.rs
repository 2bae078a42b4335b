//! Reading skill sources. A skill comes from a repository that
//! may be hostile: a cloned project can ship a `SKILL.md` that is a link
//! to `~/.aws/credentials`. So no link is followed: the skill folder, its
//! `SKILL.md` and every folder between them and the folder of the config
//! file that names the skill must be real (exit 6 otherwise); `SKILL.md`
//! must be a regular file of at most 1 MiB with a single hard link, opened
//! with `O_NOFOLLOW`; its text passes the same credential check as any
//! config value.

use std::path::{Path, PathBuf};

use crate::adapter::data::CredentialRules;
use crate::config::SkillConfig;
use crate::fs_safety::{self, ReadRefusal, UnsafePath};
use crate::launch::profile::ProfileError;

/// The largest `SKILL.md` staged.
pub const MAX_SKILL_BYTES: u64 = 1024 * 1024;

/// The longest common ancestor of two absolute paths.
fn common_ancestor(left: &Path, right: &Path) -> PathBuf {
    left.components()
        .zip(right.components())
        .take_while(|(left, right)| left == right)
        .map(|(component, _)| component)
        .collect()
}

fn config_error(entry: &str, index: usize, message: String) -> ProfileError {
    ProfileError::Config {
        key: format!("{entry}.skills[{index}].path"),
        message,
    }
}

/// The text of skill `index`'s `SKILL.md`, read as a skill source says
/// (`entry` names the config entry in errors: `adapters.kiro`).
pub fn read_skill(
    index: usize,
    skill: &SkillConfig,
    rules: &CredentialRules,
    entry: &str,
) -> Result<String, ProfileError> {
    let folder = crate::fs_safety::lexical_normalize(&skill.path);
    if !folder.is_absolute() {
        return Err(config_error(
            entry,
            index,
            format!("`{}` is not an absolute path", folder.display()),
        ));
    }
    let base = if skill.config_dir.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        crate::fs_safety::lexical_normalize(&skill.config_dir)
    };
    check_folders_on_the_way(&base, &folder, entry, index)?;
    let file = folder.join("SKILL.md");
    let bytes = read_skill_file(&file, entry, index)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        config_error(
            entry,
            index,
            format!("`{}` is not UTF-8 text", file.display()),
        )
    })?;
    crate::config::check_text(rules, &format!("{entry}.skills[{index}]"), &text)?;
    Ok(text)
}

/// Every folder from where `base` (the config file's folder) and `folder`
/// part, down to `folder` itself, is a real folder: a link or anything
/// else is refused, a missing one is a config error.
fn check_folders_on_the_way(
    base: &Path,
    folder: &Path,
    entry: &str,
    index: usize,
) -> Result<(), ProfileError> {
    let root = common_ancestor(base, folder);
    let rest = folder.strip_prefix(&root).unwrap_or(Path::new(""));
    let mut current = root.clone();
    for component in rest.components() {
        current.push(component);
        match fs_err::symlink_metadata(&current).map_err(crate::fs_error::os_cause) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(UnsafePath::Symlink { path: current }.into())
            }
            Ok(metadata) if !metadata.is_dir() => {
                return Err(UnsafePath::WrongType {
                    path: current,
                    found: fs_safety::describe(metadata.file_type()),
                    expected: "directory",
                }
                .into())
            }
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(config_error(
                    entry,
                    index,
                    format!("skill folder `{}` does not exist", folder.display()),
                ))
            }
            Err(source) => {
                return Err(ProfileError::Io {
                    action: "inspect",
                    path: current,
                    source,
                })
            }
        }
    }
    Ok(())
}

/// The bytes of `SKILL.md` (`file`), opened without following a link: a
/// regular file of at most [`MAX_SKILL_BYTES`] with a single hard link.
fn read_skill_file(file: &Path, entry: &str, index: usize) -> Result<Vec<u8>, ProfileError> {
    let (bytes, metadata) =
        fs_safety::read_regular_file_with_metadata(file, MAX_SKILL_BYTES, false)
            .map_err(|refusal| refused(refusal, file, entry, index))?;
    // A second name for the same file is a link by another means: a
    // hard link to `~/.aws/credentials` reads as a plain file. The count
    // comes from the open file, so it describes what was read.
    if std::os::unix::fs::MetadataExt::nlink(&metadata) > 1 {
        return Err(UnsafePath::WrongType {
            path: file.to_owned(),
            found: "file with more than one hard link",
            expected: "regular file with a single link",
        }
        .into());
    }
    Ok(bytes)
}

/// Why `SKILL.md` (`file`) was not read, as the error the user sees.
fn refused(refusal: ReadRefusal, file: &Path, entry: &str, index: usize) -> ProfileError {
    match refusal {
        ReadRefusal::Missing => {
            config_error(entry, index, format!("`{}` does not exist", file.display()))
        }
        ReadRefusal::Symlink => UnsafePath::Symlink {
            path: file.to_owned(),
        }
        .into(),
        ReadRefusal::NotRegular(found) => UnsafePath::WrongType {
            path: file.to_owned(),
            found,
            expected: "regular file",
        }
        .into(),
        ReadRefusal::TooLarge => config_error(
            entry,
            index,
            format!(
                "`{}` is larger than {MAX_SKILL_BYTES} bytes",
                file.display()
            ),
        ),
        ReadRefusal::Io(source) => ProfileError::Io {
            action: "read",
            path: file.to_owned(),
            source,
        },
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::adapter::data::AdapterData;

    fn skill(path: PathBuf, config_dir: &Path) -> SkillConfig {
        SkillConfig {
            name: "s".to_owned(),
            path,
            config_dir: config_dir.to_owned(),
        }
    }

    fn rules() -> CredentialRules {
        AdapterData::builtin().expect("data").credentials
    }

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(
            crate::fs_safety::lexical_normalize(Path::new("/p/.oneworks/./../skills/x")),
            Path::new("/p/skills/x")
        );
        assert_eq!(
            common_ancestor(Path::new("/p/.oneworks"), Path::new("/p/skills/x")),
            Path::new("/p")
        );
    }

    #[test]
    fn links_anywhere_on_the_way_are_refused() {
        let temp = tempfile::tempdir().expect("tempdir");
        let config_dir = temp.path().join("proj/.oneworks");
        std::fs::create_dir_all(&config_dir).expect("mkdir");
        let secret = temp.path().join("secret");
        std::fs::create_dir_all(&secret).expect("mkdir");
        std::fs::write(secret.join("SKILL.md"), "secret text\n").expect("write");
        let real = temp.path().join("proj/skills/real");
        std::fs::create_dir_all(&real).expect("mkdir");
        std::fs::write(real.join("SKILL.md"), "# Real\n").expect("write");
        let rules = rules();
        let read =
            |path: PathBuf| read_skill(0, &skill(path, &config_dir), &rules, "adapters.kiro");

        assert_eq!(
            read(config_dir.join("../skills/real")).expect("real"),
            "# Real\n"
        );

        let linked_file = temp.path().join("proj/skills/linked-file");
        std::fs::create_dir_all(&linked_file).expect("mkdir");
        std::os::unix::fs::symlink(secret.join("SKILL.md"), linked_file.join("SKILL.md"))
            .expect("symlink");
        let linked_folder = temp.path().join("proj/skills/linked-folder");
        std::os::unix::fs::symlink(&secret, &linked_folder).expect("symlink");
        let between = temp.path().join("proj/between");
        std::os::unix::fs::symlink(temp.path(), &between).expect("symlink");
        for path in [
            linked_file.clone(),
            linked_folder.clone(),
            between.join("secret"),
        ] {
            let error = read(path.clone()).unwrap_err();
            assert!(
                matches!(error, ProfileError::Unsafe(UnsafePath::Symlink { .. })),
                "{}: {error}",
                path.display()
            );
        }
    }

    #[test]
    fn special_large_and_credential_bodies_are_refused() {
        let temp = tempfile::tempdir().expect("tempdir");
        let rules = rules();
        let folder = temp.path().join("s");
        std::fs::create_dir(&folder).expect("mkdir");
        let read = || {
            read_skill(
                0,
                &skill(folder.clone(), temp.path()),
                &rules,
                "adapters.kiro",
            )
        };

        std::fs::create_dir(folder.join("SKILL.md")).expect("mkdir");
        assert!(matches!(
            read().unwrap_err(),
            ProfileError::Unsafe(UnsafePath::WrongType { .. })
        ));
        std::fs::remove_dir(folder.join("SKILL.md")).expect("rmdir");

        std::fs::write(
            folder.join("SKILL.md"),
            vec![b'a'; MAX_SKILL_BYTES as usize + 1],
        )
        .expect("write");
        let error = read().unwrap_err();
        assert!(error.to_string().contains("larger than"), "{error}");

        std::fs::write(
            folder.join("SKILL.md"),
            "use ghp_abcdefghijklmnopqrstuvwxyz0123\n",
        )
        .expect("write");
        let error = read().unwrap_err();
        assert!(
            matches!(
                error,
                ProfileError::Configuration(crate::config::ConfigError::Credential { .. })
            ),
            "{error}"
        );

        std::fs::write(folder.join("SKILL.md"), "# Fine\n").expect("write");
        std::fs::hard_link(folder.join("SKILL.md"), temp.path().join("other")).expect("link");
        let error = read().unwrap_err();
        assert!(error.to_string().contains("hard link"), "{error}");
        std::fs::remove_file(temp.path().join("other")).expect("unlink");
        assert_eq!(read().expect("single link"), "# Fine\n");

        let missing = read_skill(
            0,
            &skill(temp.path().join("none"), temp.path()),
            &rules,
            "adapters.kiro",
        );
        assert!(
            matches!(missing, Err(ProfileError::Config { .. })),
            "{missing:?}"
        );
    }
}
