//! The agent's stdout as lines, each at most `max` bytes: a longer line is
//! dropped whole (reported, never fatal) without being held in memory, so a
//! runaway agent cannot make oneworks grow without bound. Cancel-safe: the
//! partial line lives in the reader, not in the future, so `select!` may
//! drop a pending read.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(Vec<u8>),
    /// A line longer than the bound, dropped; its length in bytes.
    TooLong(usize),
}

pub struct LineReader<R> {
    inner: BufReader<R>,
    line: Vec<u8>,
    /// Bytes of the current over-long line dropped so far.
    dropping: Option<usize>,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            dropping: None,
            max,
        }
    }

    /// The next line without its `\n`; `None` at the end of the stream.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if let Some(dropped) = self.dropping.take() {
                    return Ok(Some(Line::TooLong(dropped)));
                }
                if self.line.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(Line::Text(std::mem::take(&mut self.line))));
            }
            let newline = available.iter().position(|byte| *byte == b'\n');
            let taken = newline.unwrap_or(available.len());
            match &mut self.dropping {
                Some(dropped) => *dropped += taken,
                None if self.line.len() + taken > self.max => {
                    self.dropping = Some(self.line.len() + taken);
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(&available[..taken]),
            }
            let consumed = newline.map_or(taken, |at| at + 1);
            self.inner.consume(consumed);
            if newline.is_some() {
                if let Some(dropped) = self.dropping.take() {
                    return Ok(Some(Line::TooLong(dropped)));
                }
                return Ok(Some(Line::Text(std::mem::take(&mut self.line))));
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
}
