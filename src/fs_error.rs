//! fs-err's errors name the path they failed on. A subsystem variant that
//! names the path itself keeps only the operating system's cause, so a
//! printed chain names each path once.

use std::io;

/// The original error under an fs-err error, raw OS code included (so
/// `raw_os_error` checks keep working); any other error unchanged.
pub fn os_cause(error: io::Error) -> io::Error {
    let Some(original) = error
        .get_ref()
        .and_then(std::error::Error::source)
        .and_then(|source| source.downcast_ref::<io::Error>())
    else {
        return error;
    };
    match original.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(original.kind(), original.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::os_cause;

    #[test]
    fn drops_the_path_fs_err_added_and_keeps_the_os_code() {
        let temp = tempfile::tempdir().expect("tempdir");
        let missing = temp.path().join("missing-file");
        let error = fs_err::read(&missing).expect_err("missing");
        let cause = os_cause(error);
        assert_eq!(cause.raw_os_error(), Some(libc::ENOENT));
        assert_eq!(cause.kind(), std::io::ErrorKind::NotFound);
        assert!(!cause.to_string().contains("missing-file"), "{cause}");
    }

    #[test]
    fn keeps_a_message_without_an_os_code() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("binary");
        fs_err::write(&path, [0xff, 0xfe]).expect("write");
        let error = fs_err::read_to_string(&path).expect_err("not utf-8");
        let cause = os_cause(error);
        assert_eq!(cause.kind(), std::io::ErrorKind::InvalidData);
        assert!(cause.to_string().contains("UTF-8"), "{cause}");
        assert!(!cause.to_string().contains("binary"), "{cause}");
    }

    #[test]
    fn leaves_other_errors_alone() {
        let error = std::io::Error::other("plain");
        assert_eq!(os_cause(error).to_string(), "plain");
    }
}
