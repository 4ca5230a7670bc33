//! Reading a runtime's output line by line without trusting it: bytes that are not UTF-8 are
//! replaced (reading goes on), and a line longer than the cap is skipped as it streams, never
//! held whole.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, BufReader};

/// Longer lines are skipped: no runtime protocol message comes near this.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Capacity kept between lines; a buffer grown past it by one long line is given back.
const KEEP_CAPACITY: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadLine {
    /// A line without its end (`\n` or `\r\n`). `lossy` when bytes that are not UTF-8 were
    /// replaced with U+FFFD.
    Line {
        text: String,
        lossy: bool,
    },
    /// A line of this many bytes was longer than the cap; its bytes were discarded.
    TooLong(usize),
    Eof,
}

impl ReadLine {
    /// The warning to show for a skipped line.
    pub fn too_long_message(bytes: usize) -> String {
        format!("A line of {bytes} bytes was longer than {} MiB and was skipped.", MAX_LINE_BYTES / (1024 * 1024))
    }
}

pub struct CappedLines<R> {
    inner: R,
    line: Vec<u8>,
    /// Bytes of a too-long line discarded so far, while skipping one.
    skipped: Option<usize>,
    cap: usize,
}

impl<R: AsyncRead + Unpin> CappedLines<BufReader<R>> {
    pub fn new(reader: R) -> Self {
        Self::with_cap(BufReader::with_capacity(64 * 1024, reader), MAX_LINE_BYTES)
    }
}

impl<R: AsyncBufRead + Unpin> CappedLines<R> {
    pub fn with_cap(inner: R, cap: usize) -> Self {
        Self { inner, line: Vec::new(), skipped: None, cap }
    }

    /// The next line. Cancel-safe: every byte taken from the reader is in `self` before the
    /// next await, so a `select!` that drops this future loses nothing.
    pub async fn next(&mut self) -> std::io::Result<ReadLine> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                if let Some(bytes) = self.skipped.take() {
                    return Ok(ReadLine::TooLong(bytes));
                }
                if self.line.is_empty() {
                    return Ok(ReadLine::Eof);
                }
                return Ok(self.take_line());
            }
            let newline = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            match &mut self.skipped {
                Some(bytes) => *bytes += part.len(),
                None if self.line.len() + part.len() > self.cap => {
                    self.skipped = Some(self.line.len() + part.len());
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(part),
            }
            let used = newline.map_or(chunk.len(), |i| i + 1);
            self.inner.consume(used);
            if newline.is_some() {
                if let Some(bytes) = self.skipped.take() {
                    return Ok(ReadLine::TooLong(bytes));
                }
                return Ok(self.take_line());
            }
        }
    }

    fn take_line(&mut self) -> ReadLine {
        let raw = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let (text, lossy) = match std::str::from_utf8(raw) {
            Ok(text) => (text.to_owned(), false),
            Err(_) => (String::from_utf8_lossy(raw).into_owned(), true),
        };
        self.line.clear();
        self.line.shrink_to(KEEP_CAPACITY);
        ReadLine::Line { text, lossy }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8], cap: usize, chunk: usize) -> Vec<ReadLine> {
        let reader = BufReader::with_capacity(chunk, input);
        let mut lines = CappedLines::with_cap(reader, cap);
        let mut out = Vec::new();
        loop {
            match lines.next().await.unwrap() {
                ReadLine::Eof => return out,
                line => out.push(line),
            }
        }
    }

    fn line(text: &str, lossy: bool) -> ReadLine {
        ReadLine::Line { text: text.to_owned(), lossy }
    }

    #[tokio::test]
    async fn lines_crlf_and_a_last_line_without_its_end() {
        for chunk in [1, 2, 3, 7, 64] {
            let got = read_all(b"one\r\ntwo\n\nthree", 100, chunk).await;
            assert_eq!(got, [line("one", false), line("two", false), line("", false), line("three", false)]);
        }
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced_and_reading_goes_on() {
        let got = read_all(b"caf\xe9\nok\n\xff\xfe", 100, 2).await;
        assert_eq!(got, [line("caf\u{fffd}", true), line("ok", false), line("\u{fffd}\u{fffd}", true)]);
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_skipped_once_and_the_next_is_read() {
        for chunk in [1, 3, 10, 1000] {
            let mut input = vec![b'x'; 25];
            input.extend_from_slice(b"\nafter\n");
            input.extend(vec![b'y'; 11]);
            let got = read_all(&input, 10, chunk).await;
            assert_eq!(got, [ReadLine::TooLong(25), line("after", false), ReadLine::TooLong(11)], "chunk {chunk}");
        }
        // Exactly at the cap is kept.
        assert_eq!(read_all(b"0123456789\n", 10, 4).await, [line("0123456789", false)]);
    }
}
