//! Skill sources and the session folders, read without following links:
//! a symlinked session or agent home, skills folder, `SKILL.md` or skill
//! folder is refused with nothing written (the link's target survives), a
//! credential in a skill body is refused, a missing skill folder fails
//! `config check` as well as `render`, and relative skill paths resolve
//! against the config file's folder.

use super::*;

#[test]
fn symlinked_session_or_agent_home_is_refused() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("elsewhere");
    std::fs::create_dir_all(&target).expect("mkdir");

    let sessions = env.project.join(".oneworks/sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::os::unix::fs::symlink(&target, sessions.join("linked")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro", "--session", "linked"]);
    outcome.assert_code(6);
    outcome.assert_stderr_contains("symbolic link");

    let root = sessions.join("home-linked");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::os::unix::fs::symlink(&target, root.join("kiro-home")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro", "--session", "home-linked"]);
    outcome.assert_code(6);
    outcome.assert_stderr_contains("kiro-home");
    assert!(
        snapshot(&target).is_empty(),
        "nothing was written through a link"
    );
}

#[test]
fn symlinked_skills_folder_is_refused_and_its_target_survives() {
    let env = TestEnv::new();
    // No skills configured: rendering would clear `skills/` of stale ones.
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("skills-elsewhere");
    std::fs::create_dir_all(target.join("a-folder")).expect("mkdir");
    std::fs::write(target.join("a-folder/keep"), "keep\n").expect("write");
    std::fs::write(target.join("a-file"), "keep\n").expect("write");
    let before = snapshot(&env.outside);
    let home = agent_home(&env, "default");
    std::fs::create_dir_all(&home).expect("mkdir kiro-home");
    std::os::unix::fs::symlink(&target, home.join("skills")).expect("symlink");

    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    assert!(
        outcome.stderr.contains("symbolic link") && outcome.stderr.contains("skills"),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        snapshot(&env.outside),
        before,
        "nothing outside the project was removed"
    );
}

#[test]
fn links_inside_the_skills_folder_are_refused_not_followed() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    let skills = agent_home(&env, "default").join("skills");
    assert!(skills.is_dir(), "render creates the skills folder");
    std::os::unix::fs::symlink(&env.outside, skills.join("linked")).expect("symlink");
    std::fs::create_dir(skills.join("stale")).expect("mkdir");
    let before = snapshot(&env.outside);
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    outcome.assert_stderr_contains("linked");
    assert_eq!(snapshot(&env.outside), before);
}

#[test]
fn a_symlinked_skill_md_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    plant_canary(&env);
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::os::unix::fs::symlink(env.home.join(".aws/credentials"), folder.join("SKILL.md"))
        .expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_symlinked_skill_folder_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    plant_canary(&env);
    std::fs::write(env.home.join(".aws/SKILL.md"), "[default]\ncanary-aws\n").expect("write");
    let skills = env.project.join(".oneworks/skills");
    std::fs::create_dir_all(&skills).expect("mkdir");
    std::os::unix::fs::symlink(env.home.join(".aws"), skills.join("review")).expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_symlink_between_the_config_and_the_skill_is_refused() {
    let env = TestEnv::new();
    plant_canary(&env);
    let elsewhere = env.home.join("elsewhere/review");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("SKILL.md"), "canary-aws\n").expect("write");
    std::os::unix::fs::symlink(
        env.home.join("elsewhere"),
        env.project.join(".oneworks/skills"),
    )
    .expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_credential_in_a_skill_body_is_refused() {
    let env = TestEnv::new();
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(
        folder.join("SKILL.md"),
        "# Review\nUse key AKIAABCDEFGHIJKLMNOP.\n",
    )
    .expect("write");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 3, "skills[0]");
}

#[test]
fn a_missing_skill_folder_fails_check_as_well_as_render() {
    let env = TestEnv::new();
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 3, "does not exist");
}

#[test]
fn relative_skill_paths_resolve_against_the_config_file_folder() {
    let env = TestEnv::new();
    // `./skills/review` in `.oneworks/config.yaml` is `.oneworks/skills/review`,
    // not `<project>/skills/review`.
    let decoy = env.project.join("skills/review");
    std::fs::create_dir_all(&decoy).expect("mkdir");
    std::fs::write(decoy.join("SKILL.md"), "# Decoy\n").expect("write");
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("SKILL.md"), "# Real\n").expect("write");
    env.write_config(skill_config());
    env.run(&["config", "check"]).assert_success();
    env.run(&["config", "render", "kiro"]).assert_success();
    let staged =
        std::fs::read_to_string(agent_home(&env, "default").join("skills/Review/SKILL.md"))
            .expect("staged");
    assert_eq!(staged, "# Real\n");
}
