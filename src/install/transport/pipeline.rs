//! The streaming pipeline's first stage: a thread reads the network body,
//! hashes it (SHA-256, SHA-NI where the CPU has it; SHA-512 too for npm
//! tarballs, whose `integrity` is a sha512) and forwards chunks to
//! the decompressor on the calling thread, so hashing overlaps
//! decompression and nothing is held whole in memory.

use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use sha2::{Digest as _, Sha256, Sha512};

const CHUNK: usize = 256 * 1024;
/// Chunks in flight between the stages (bounds memory to ~2 MB).
const DEPTH: usize = 8;

/// What went through the pipe.
#[derive(Debug, Clone)]
pub struct Digest {
    pub sha256: String,
    /// The raw SHA-512, when it was asked for.
    pub sha512: Option<Vec<u8>>,
    pub bytes: u64,
}

/// The consuming end: a reader over the forwarded chunks.
pub struct PipeReader {
    receiver: Receiver<Vec<u8>>,
    current: Vec<u8>,
    offset: usize,
}

impl Read for PipeReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        while self.offset == self.current.len() {
            match self.receiver.recv() {
                Ok(chunk) => {
                    self.current = chunk;
                    self.offset = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let count = buffer.len().min(self.current.len() - self.offset);
        buffer[..count].copy_from_slice(&self.current[self.offset..self.offset + count]);
        self.offset += count;
        Ok(count)
    }
}

impl PipeReader {
    /// Reads to the end so the hashing stage sees every byte.
    pub fn drain(&mut self) {
        let _ = std::io::copy(self, &mut std::io::sink());
    }
}

/// Starts the hashing stage over `body` (SHA-512 too when `sha512`);
/// `on_bytes` sees each chunk's size.
pub fn hashing_pipe(
    mut body: Box<dyn Read + Send>,
    sha512: bool,
    on_bytes: impl Fn(u64) + Send + 'static,
) -> (PipeReader, JoinHandle<std::io::Result<Digest>>) {
    let (sender, receiver) = sync_channel::<Vec<u8>>(DEPTH);
    let handle = std::thread::spawn(move || {
        let mut hasher = Sha256::new();
        let mut hasher512 = sha512.then(Sha512::new);
        let mut bytes = 0u64;
        loop {
            let mut chunk = vec![0u8; CHUNK];
            let read = match body.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            chunk.truncate(read);
            hasher.update(&chunk);
            if let Some(hasher512) = &mut hasher512 {
                hasher512.update(&chunk);
            }
            bytes += read as u64;
            on_bytes(read as u64);
            if sender.send(chunk).is_err() {
                // The consumer gave up; keep hashing so the digest is whole.
                let mut rest = vec![0u8; CHUNK];
                loop {
                    let read = match body.read(&mut rest) {
                        Ok(0) => break,
                        Ok(read) => read,
                        Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(error) => return Err(error),
                    };
                    hasher.update(&rest[..read]);
                    if let Some(hasher512) = &mut hasher512 {
                        hasher512.update(&rest[..read]);
                    }
                    bytes += read as u64;
                }
                break;
            }
        }
        Ok(Digest {
            sha256: hex::encode(hasher.finalize()),
            sha512: hasher512.map(|hasher512| hasher512.finalize().to_vec()),
            bytes,
        })
    });
    (
        PipeReader {
            receiver,
            current: Vec::new(),
            offset: 0,
        },
        handle,
    )
}

/// Reads `body` while hashing, for the zip spool.
pub struct HashingSink<'a, R: Read + ?Sized>(pub &'a mut R, pub &'a mut Sha256, pub &'a mut u64);

impl<R: Read + ?Sized> Read for HashingSink<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.0.read(buffer)?;
        self.1.update(&buffer[..read]);
        *self.2 += read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_and_forwards_everything() {
        let data: Vec<u8> = (0..3_000_000u32).map(|index| (index % 251) as u8).collect();
        let expected = hex::encode(Sha256::digest(&data));
        let (mut reader, handle) =
            hashing_pipe(Box::new(std::io::Cursor::new(data.clone())), true, |_| {});
        let mut forwarded = Vec::new();
        reader.read_to_end(&mut forwarded).expect("read");
        let digest = handle.join().expect("thread").expect("digest");
        assert_eq!(forwarded, data);
        assert_eq!(digest.sha256, expected);
        assert_eq!(digest.sha512, Some(Sha512::digest(&data).to_vec()));
        assert_eq!(digest.bytes, data.len() as u64);
    }

    #[test]
    fn digest_is_whole_when_consumer_stops_early() {
        let data = vec![7u8; 5_000_000];
        let expected = hex::encode(Sha256::digest(&data));
        let (reader, handle) =
            hashing_pipe(Box::new(std::io::Cursor::new(data.clone())), true, |_| {});
        drop(reader);
        let digest = handle.join().expect("thread").expect("digest");
        assert_eq!(digest.sha256, expected);
        assert_eq!(digest.sha512, Some(Sha512::digest(&data).to_vec()));
    }
}
