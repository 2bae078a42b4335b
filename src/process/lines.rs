//! Lines from outside — a child's stdout or stderr, stdin replies, the
//! recorder file — each at most `max` bytes. A longer line is dropped
//! whole (its length reported, never fatal) without being held: the input
//! is read in fixed blocks and only the current line, up to `max`, is kept,
//! so a runaway writer cannot make oneworks grow without bound.
//!
//! [`LineBuffer`] is the splitter every reader shares; [`LineReader`] reads
//! an async stream with it (cancel-safe: the partial line lives in the
//! reader, not in the future, so `select!` may drop a pending read) and
//! [`BlockingLines`] a blocking one (stdin on its own thread).

use std::io::BufRead;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The size of the blocks input is read in.
pub const BLOCK: usize = 64 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(Vec<u8>),
    /// A line longer than the bound, dropped; its length in bytes.
    TooLong(usize),
}

/// Splits bytes into lines of at most `max` bytes, fed block by block.
#[derive(Debug)]
pub struct LineBuffer {
    line: Vec<u8>,
    /// Bytes of the current over-long line dropped so far.
    dropping: Option<usize>,
    max: usize,
}

impl LineBuffer {
    pub fn new(max: usize) -> Self {
        Self {
            line: Vec::new(),
            dropping: None,
            max,
        }
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// Takes bytes of `block` up to and including the first newline:
    /// how many were used, and the line that newline ended (without it).
    pub fn feed(&mut self, block: &[u8]) -> (usize, Option<Line>) {
        let newline = memchr::memchr(b'\n', block);
        let taken = newline.unwrap_or(block.len());
        match &mut self.dropping {
            Some(dropped) => *dropped += taken,
            None if self.line.len() + taken > self.max => {
                self.dropping = Some(self.line.len() + taken);
                self.line = Vec::new();
            }
            None => self.line.extend_from_slice(&block[..taken]),
        }
        match newline {
            Some(at) => (at + 1, Some(self.take())),
            None => (taken, None),
        }
    }

    /// The end of the input: the unfinished last line, if any.
    pub fn finish(&mut self) -> Option<Line> {
        if self.dropping.is_none() && self.line.is_empty() {
            return None;
        }
        Some(self.take())
    }

    /// Starts over with nothing held (the input was replaced).
    pub fn reset(&mut self) {
        self.line = Vec::new();
        self.dropping = None;
    }

    fn take(&mut self) -> Line {
        match self.dropping.take() {
            Some(dropped) => Line::TooLong(dropped),
            None => Line::Text(std::mem::take(&mut self.line)),
        }
    }
}

/// Bounded lines of an async stream.
pub struct LineReader<R> {
    inner: BufReader<R>,
    buffer: LineBuffer,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(BLOCK, reader),
            buffer: LineBuffer::new(max),
        }
    }

    pub fn max(&self) -> usize {
        self.buffer.max()
    }

    /// The next line without its `\n`; `None` at the end of the stream.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(self.buffer.finish());
            }
            let (used, line) = self.buffer.feed(available);
            self.inner.consume(used);
            if line.is_some() {
                return Ok(line);
            }
        }
    }
}

/// Bounded lines of a blocking reader.
pub struct BlockingLines<R> {
    inner: std::io::BufReader<R>,
    buffer: LineBuffer,
}

impl<R: std::io::Read> BlockingLines<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self {
            inner: std::io::BufReader::with_capacity(BLOCK, reader),
            buffer: LineBuffer::new(max),
        }
    }

    /// The next line without its `\n`; `None` at the end of the input.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(self.buffer.finish());
            }
            let (used, line) = self.buffer.feed(available);
            self.inner.consume(used);
            if line.is_some() {
                return Ok(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_dropped_and_the_rest_kept() {
        let input: &[u8] = b"short\nthis line is far too long\nok\nlast-without-newline";
        let mut reader = LineReader::new(input, 10);
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::Text(b"short".to_vec()))
        );
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::TooLong(25))
        );
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::Text(b"ok".to_vec()))
        );
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::TooLong(20))
        );
        assert_eq!(reader.next_line().await.expect("read"), None);
    }

    #[tokio::test]
    async fn lines_split_across_reads_are_joined() {
        let (mut writer, read_half) = tokio::io::duplex(4);
        let mut reader = LineReader::new(read_half, 1024);
        let write = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            writer
                .write_all(b"{\"a\":1}\n{\"b\":")
                .await
                .expect("write");
            writer.write_all(b"2}\n").await.expect("write");
        });
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::Text(b"{\"a\":1}".to_vec()))
        );
        assert_eq!(
            reader.next_line().await.expect("read"),
            Some(Line::Text(b"{\"b\":2}".to_vec()))
        );
        write.await.expect("writer");
        assert_eq!(reader.next_line().await.expect("read"), None);
    }

    /// A reader of `length` bytes of `x` (no newline), then `tail`, made
    /// up as it is read: nothing holds the whole input.
    struct Endless {
        left: usize,
        tail: &'static [u8],
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.left > 0 {
                let count = self.left.min(buf.len());
                buf[..count].fill(b'x');
                self.left -= count;
                return Ok(count);
            }
            let count = self.tail.len().min(buf.len());
            buf[..count].copy_from_slice(&self.tail[..count]);
            self.tail = &self.tail[count..];
            Ok(count)
        }
    }

    #[test]
    fn a_huge_line_is_counted_not_held_and_the_next_line_is_read() {
        let mut lines = BlockingLines::new(
            Endless {
                left: 64 << 20,
                tail: b"\nnext\n",
            },
            1024,
        );
        assert_eq!(
            lines.next_line().expect("read"),
            Some(Line::TooLong(64 << 20))
        );
        assert!(lines.buffer.line.capacity() <= 1024);
        assert_eq!(
            lines.next_line().expect("read"),
            Some(Line::Text(b"next".to_vec()))
        );
        assert_eq!(lines.next_line().expect("read"), None);
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_kept_and_skipping_ends_at_the_newline() {
        let mut buffer = LineBuffer::new(4);
        assert_eq!(
            buffer.feed(b"abcd\nrest"),
            (5, Some(Line::Text(b"abcd".to_vec())))
        );
        assert_eq!(buffer.feed(b"rest"), (4, None));
        assert_eq!(buffer.feed(b"more\nnew"), (5, Some(Line::TooLong(8))));
        assert_eq!(buffer.feed(b"new"), (3, None));
        buffer.reset();
        assert_eq!(buffer.feed(b"ok\n"), (3, Some(Line::Text(b"ok".to_vec()))));
        assert_eq!(buffer.finish(), None);
    }
}
