//! A file written on a thread of its own: the generator hands over 32 MiB
//! buffers and goes on making points while the previous ones are written
//! (at full size the file is 47 GB, and writing it is most of the work).

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Bytes per buffer handed to the writing thread.
const BUFFER: usize = 32 << 20;
/// Buffers waiting to be written at most (beside the one being filled).
const IN_FLIGHT: usize = 4;

pub(crate) struct BackgroundWriter {
    buffer: Vec<u8>,
    sender: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<File>>>,
}

impl BackgroundWriter {
    pub(crate) fn new(mut file: File) -> io::Result<Self> {
        let (sender, receiver) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let thread = std::thread::Builder::new().name("cuzk-params-writer".into()).spawn(move || -> io::Result<File> {
            for buffer in receiver {
                file.write_all(&buffer)?;
            }
            Ok(file)
        })?;
        Ok(BackgroundWriter { buffer: Vec::with_capacity(BUFFER), sender: Some(sender), thread: Some(thread) })
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.buffer, Vec::with_capacity(BUFFER));
        match &self.sender {
            Some(sender) if sender.send(full).is_ok() => Ok(()),
            // The thread stopped: its error comes back from `finish`.
            _ => Err(self.stopped()),
        }
    }

    /// The writing thread's own error, once it has stopped.
    fn stopped(&mut self) -> io::Error {
        self.sender = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(_)) => io::Error::other("the parameter file's writing thread panicked"),
            _ => io::Error::other("the parameter file's writing thread stopped"),
        }
    }

    /// Everything written, then the file synced to disk.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.send()?;
        self.sender = None;
        let file = match self.thread.take().map(|t| t.join()) {
            Some(Ok(result)) => result?,
            Some(Err(_)) => return Err(io::Error::other("the parameter file's writing thread panicked")),
            None => return Err(io::Error::other("the parameter file's writing thread stopped")),
        };
        file.sync_all()
    }
}

impl Write for BackgroundWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let take = rest.len().min(BUFFER - self.buffer.len());
            self.buffer.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buffer.len() == BUFFER {
                self.send()?;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

impl Drop for BackgroundWriter {
    fn drop(&mut self) {
        // An abandoned file (an error on the way): stop the thread.
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_arrive_in_order_across_buffers() {
        let path = std::env::temp_dir().join(format!("cuzk-background-writer-{}", std::process::id()));
        let mut w = BackgroundWriter::new(File::create(&path).unwrap()).unwrap();
        let mut expected = Vec::new();
        for k in 0..40u32 {
            // Pieces of odd sizes around the buffer's.
            let piece: Vec<u8> = (0..(BUFFER / 7 + k as usize * 4099)).map(|i| (i as u32).wrapping_mul(k + 1) as u8).collect();
            w.write_all(&piece).unwrap();
            expected.extend_from_slice(&piece);
        }
        w.finish().unwrap();
        let written = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(written.len(), expected.len());
        assert!(written == expected);
    }

    #[test]
    fn a_failing_write_is_an_error_not_a_hang() {
        // A file opened read-only: the thread's first write fails.
        let path = std::env::temp_dir().join(format!("cuzk-background-writer-ro-{}", std::process::id()));
        std::fs::write(&path, b"x").unwrap();
        let mut w = BackgroundWriter::new(File::open(&path).unwrap()).unwrap();
        let piece = vec![7u8; BUFFER];
        let mut failed = false;
        for _ in 0..(IN_FLIGHT + 3) {
            if w.write_all(&piece).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed || w.finish().is_err());
        std::fs::remove_file(&path).unwrap();
    }
}
