//! Where a session lives: the persistent profile
//! `<project>/.oneworks/sessions/<name>/` (0700) with `<adapter>-home/` (the
//! agent's home) and `data/` (the child's XDG data, state, config and cache),
//! and a short private runtime folder per session for sockets and temp
//! HOMEs. Every folder is created without following links.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{io_error, ProfileError};
use crate::fs_safety;
use crate::locations::{Locations, Project};

/// The folders of one session.
#[derive(Debug, Clone)]
pub struct ProfileLayout {
    pub name: String,
    /// The project root: symlinks are refused below it.
    pub project: PathBuf,
    /// `<project>/.oneworks/sessions/<name>`.
    pub root: PathBuf,
    /// `<root>/<adapter>-home`: the agent's home (the adapter data's
    /// `session.homeVariable` points at it).
    pub agent_home: PathBuf,
    /// `<root>/data`: `XDG_DATA_HOME` & co. of the child live inside.
    pub data: PathBuf,
    /// `$XDG_RUNTIME_DIR/oneworks` or `/tmp/oneworks-<uid>`.
    pub runtime_base: PathBuf,
    /// `<runtime_base>/<short hash>`: this session's private runtime folder.
    pub runtime: PathBuf,
    /// `$ONEWORKS_CACHE_DIR/node-compile-cache`: Node.js's on-disk code
    /// cache (`NODE_COMPILE_CACHE`) for the agents that run on Node, kept
    /// across runs in the user's cache, never in the project (a cache a
    /// cloned repository shipped would be code run at the next start).
    pub compile_cache: PathBuf,
}

/// The child's XDG folders inside the profile.
#[derive(Debug, Clone)]
pub struct XdgDirs {
    pub data: PathBuf,
    pub state: PathBuf,
    pub config: PathBuf,
    pub cache: PathBuf,
}

const GITIGNORE: &str =
    "# Written by oneworks: session profiles hold logins and caches.\nsessions/\n";

impl ProfileLayout {
    /// The folders of session `name` of `project` for adapter `adapter`
    /// (its home is `<root>/<adapter>-home`).
    pub fn new(project: &Project, locations: &Locations, name: &str, adapter: &str) -> Self {
        let root = project.dot_dir().join("sessions").join(name);
        // Unix socket paths are limited to 108 bytes: a short hash of the
        // project and session names the runtime folder.
        let mut hasher = Sha256::new();
        hasher.update(project.root.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        hasher.update(name.as_bytes());
        let short = hex::encode(&hasher.finalize()[..6]);
        Self {
            name: name.to_owned(),
            project: project.root.clone(),
            agent_home: root.join(format!("{adapter}-home")),
            data: root.join("data"),
            root,
            runtime_base: locations.runtime_dir.clone(),
            runtime: locations.runtime_dir.join(short),
            compile_cache: locations.cache_dir.join("node-compile-cache"),
        }
    }

    pub fn xdg(&self) -> XdgDirs {
        XdgDirs {
            data: self.data.join("share"),
            state: self.data.join("state"),
            config: self.data.join("config"),
            cache: self.data.join("cache"),
        }
    }

    /// Refuses the session root and the agent home when a link, a special
    /// entry or an escaping real path is on the way. Creates nothing.
    pub fn check(&self) -> Result<(), ProfileError> {
        fs_safety::check_dir_chain(&self.project, &self.agent_home)?;
        fs_safety::check_dir_chain(&self.project, &self.data)?;
        Ok(())
    }

    /// Creates the profile (0700) and `.oneworks/.gitignore`, refusing links.
    pub fn ensure(&self) -> Result<(), ProfileError> {
        self.check()?;
        let dot = self.project.join(".oneworks");
        fs_safety::create_dir_chain(&self.project, &dot, 0o755)?;
        fs_safety::create_dir_chain(&self.project, &self.root, 0o700)?;
        restrict(&self.root)?;
        fs_safety::create_dir_chain(&self.project, &self.agent_home, 0o700)?;
        let xdg = self.xdg();
        for dir in [&xdg.data, &xdg.state, &xdg.config, &xdg.cache] {
            fs_safety::create_dir_chain(&self.project, dir, 0o700)?;
        }
        fs_safety::check_real_path_inside(&dot, &self.agent_home)?;
        let gitignore = dot.join(".gitignore");
        if fs_err::symlink_metadata(&gitignore).is_err() {
            fs_safety::atomic_write(&gitignore, GITIGNORE.as_bytes(), 0o644)
                .map_err(io_error("write", &gitignore))?;
        }
        Ok(())
    }

    /// Creates the private runtime folders (0700, ours) and returns this
    /// session's.
    pub fn ensure_runtime(&self) -> Result<&Path, ProfileError> {
        ensure_private(&self.runtime_base)?;
        ensure_private(&self.runtime)?;
        Ok(&self.runtime)
    }

    /// Creates Node.js's code cache folder (0700, ours) and returns it.
    /// Agents on Node enable that cache themselves (`module.enableCompileCache`)
    /// under their temporary folder, which is removed after each run: named
    /// here, a second start reads what the first compiled.
    pub fn ensure_compile_cache(&self) -> Result<&Path, ProfileError> {
        ensure_private(&self.compile_cache)?;
        Ok(&self.compile_cache)
    }
}

fn restrict(path: &Path) -> Result<(), ProfileError> {
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o700))
        .map_err(io_error("restrict", path))
}

/// Creates `path` as a 0700 folder of ours, or checks the existing one.
fn ensure_private(path: &Path) -> Result<(), ProfileError> {
    match std::fs::DirBuilder::new()
        .recursive(false)
        .create_private(path)
    {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs_err::create_dir_all(parent).map_err(io_error("create", parent))?;
            }
            std::fs::DirBuilder::new()
                .create_private(path)
                .or_else(|error| {
                    if error.kind() == std::io::ErrorKind::AlreadyExists {
                        Ok(())
                    } else {
                        Err(error)
                    }
                })
                .map_err(io_error("create", path))?;
        }
        Err(error) => return Err(io_error("create", path)(error)),
    }
    fs_safety::check_private_dir(path)?;
    Ok(())
}

trait CreatePrivate {
    fn create_private(&mut self, path: &Path) -> std::io::Result<()>;
}

impl CreatePrivate for std::fs::DirBuilder {
    fn create_private(&mut self, path: &Path) -> std::io::Result<()> {
        std::os::unix::fs::DirBuilderExt::mode(self, 0o700).create(path)
    }
}

/// A name that is not a session name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a session name is 1 to 64 characters of A-Z, a-z, 0-9, `_` and `-`")]
pub struct InvalidSessionName;

/// The sessions of `project`, sorted: the folders in `.oneworks/sessions/`
/// with a valid name. A link there, or on the way below the project, is no
/// session and is never followed (a clone can bring one).
pub fn session_names(project: &Project) -> Vec<String> {
    let sessions = project.dot_dir().join("sessions");
    let Ok(dir) = fs_safety::open_existing_dir_beneath(&project.root, &sessions) else {
        return Vec::new();
    };
    let mut names: Vec<String> = fs_safety::list_dir(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, kind)| *kind == "directory")
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| parse_session_name(name).is_ok())
        .collect();
    names.sort();
    names
}

/// Session names: `[A-Za-z0-9_-]{1,64}`.
pub fn parse_session_name(name: &str) -> Result<String, InvalidSessionName> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if valid {
        Ok(name.to_owned())
    } else {
        Err(InvalidSessionName)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::env_options::environment::Environment;
    use std::os::unix::fs::PermissionsExt;

    fn layout(temp: &Path) -> ProfileLayout {
        let project = Project {
            root: temp.join("project"),
            initialized: true,
        };
        std::fs::create_dir_all(&project.root).expect("mkdir");
        let env = Environment::from_pairs([
            ("HOME", temp.join("home")),
            ("XDG_RUNTIME_DIR", temp.join("run")),
        ]);
        let locations =
            Locations::resolve(&crate::env_options::EnvOptions::parse(&env).expect("valid"))
                .expect("locations");
        ProfileLayout::new(&project, &locations, "default", "kiro")
    }

    #[test]
    fn creates_private_profile_and_gitignore() {
        let temp = tempfile::tempdir().expect("tempdir");
        let layout = layout(temp.path());
        layout.ensure().expect("ensure");
        let mode = std::fs::metadata(&layout.root)
            .expect("root")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        assert!(layout.agent_home.is_dir());
        let gitignore = std::fs::read_to_string(layout.project.join(".oneworks/.gitignore"))
            .expect("gitignore");
        assert!(gitignore.lines().any(|line| line == "sessions/"));
        let runtime = layout.ensure_runtime().expect("runtime").to_owned();
        assert!(
            runtime.as_os_str().len() < 80,
            "short runtime path: {}",
            runtime.display()
        );
        let mode = std::fs::metadata(&runtime)
            .expect("runtime")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn refuses_symlinked_session_or_agent_home() {
        let temp = tempfile::tempdir().expect("tempdir");
        let layout = layout(temp.path());
        let elsewhere = temp.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).expect("mkdir");
        std::fs::create_dir_all(layout.root.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(&elsewhere, &layout.root).expect("symlink");
        assert!(matches!(layout.ensure(), Err(ProfileError::Unsafe(_))));
        std::fs::remove_file(&layout.root).expect("unlink");

        std::fs::create_dir_all(&layout.root).expect("mkdir");
        std::os::unix::fs::symlink(&elsewhere, &layout.agent_home).expect("symlink");
        assert!(matches!(layout.ensure(), Err(ProfileError::Unsafe(_))));
        assert_eq!(
            std::fs::read_dir(&elsewhere).expect("list").count(),
            0,
            "nothing written through the link"
        );
    }
}
