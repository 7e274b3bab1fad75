//! Reading and writing `trajectories.jsonl`. Reading is the slow part of scoring at benchmark
//! scale (76k trajectories), so lines are decoded straight into the typed struct, in parallel;
//! the slower path that names the bad field runs only for a line that fails.

use std::path::Path;

use super::facts::TrajectoryFacts;
use super::{lean_read, Trajectory};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::util::files::{decode_utf8, write_atomic, ReadError};
use crate::util::ids::{check_id, IdError};
use crate::util::parallel::in_parts;

/// Largest trajectories file accepted.
pub const MAX_TRAJECTORY_FILE_BYTES: u64 = 4 * 1024 * 1024 * 1024;

pub fn trajectory_from_value(v: serde_json::Value) -> Result<Trajectory, String> {
    serde_path_to_error::deserialize::<_, Trajectory>(v).map_err(|e| {
        let path = e.path().to_string();
        let mut inner = crate::util::files::json_message(e.inner());
        if let Some(rest) = inner.strip_prefix("missing field `") {
            inner = format!("required field \"{}\" is missing", rest.trim_end_matches('`'));
        }
        if path == "." || path.is_empty() {
            inner
        } else {
            format!("field \"{path}\": {inner}")
        }
    })
}

/// A located explanation of why one line is not a trajectory.
fn explain(line: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(line) {
        Err(e) => format!("not valid JSON ({}) at column {}", crate::util::files::json_message(&e), e.column()),
        Ok(v) => trajectory_from_value(v).err().unwrap_or_else(|| "not a trajectory".into()),
    }
}

/// Decode JSON texts into trajectories on all cores. Errors carry the index of the bad text.
pub fn parse_many<S: AsRef<str> + Sync>(texts: &[S]) -> Result<Vec<Trajectory>, (usize, String)> {
    let results = in_parts(texts, 2048, |first, part| {
        part.iter()
            .enumerate()
            .map(|(i, t)| serde_json::from_str::<Trajectory>(t.as_ref()).map_err(|_| (first + i, explain(t.as_ref()))))
            .collect::<Result<Vec<_>, _>>()
    })
    .ok_or_else(|| (0, "a parser thread failed".to_string()))?;
    let mut out = Vec::with_capacity(texts.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// The whole text of a trajectories file, with the size limit and UTF-8 check.
fn read_text(path: &Path) -> ApiResult<String> {
    let bytes = std::fs::read(path).map_err(|e| {
        ApiError::from(if e.kind() == std::io::ErrorKind::NotFound {
            ReadError::NotFound { path: path.to_path_buf() }
        } else {
            ReadError::Io { path: path.to_path_buf(), message: e.to_string() }
        })
    })?;
    if bytes.len() as u64 > MAX_TRAJECTORY_FILE_BYTES {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: MAX_TRAJECTORY_FILE_BYTES,
        }
        .into());
    }
    Ok(decode_utf8(path, bytes)?)
}

/// Read every trajectory of a JSONL file; the first malformed line stops the read with its location.
pub fn read_trajectories(path: &Path) -> ApiResult<Vec<Trajectory>> {
    let shown = path.display().to_string();
    let text = read_text(path)?;
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    let texts: Vec<&str> = lines.iter().map(|(_, l)| *l).collect();
    let items = parse_many(&texts)
        .map_err(|(i, msg)| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{}: {msg}", lines[i].0)))?;
    for (t, (line, _)) in items.iter().zip(&lines) {
        check_trajectory_ids(t)
            .map_err(|e| ApiError::new(ErrorCode::ValidationFailed, format!("{shown}:{line}: {e}")))?;
    }
    Ok(items)
}

/// The ids of an imported trajectory follow the id rule; an empty run id is allowed (the import
/// then makes up a new one).
fn check_trajectory_ids(t: &Trajectory) -> Result<(), IdError> {
    if !t.run_id.is_empty() {
        check_id("run id", &t.run_id)?;
    }
    check_id("case id", &t.case_id)
}

/// Takes the facts of each trajectory of one part of a file, in file order.
pub trait FactsSink: Send {
    fn add(&mut self, facts: &TrajectoryFacts<'_>);
}

/// Read a trajectories JSONL file for scoring: every line is checked exactly as
/// [`read_trajectories`] checks it (the first bad line stops the read with the same message),
/// but only the [`TrajectoryFacts`] of each line are handed on, to one sink per part of the
/// file. Parts are read on parallel threads; the sinks come back in file order.
///
/// Each thread reads its own byte range of the file in blocks into one reused buffer, so the
/// copying is shared out and the file is never held whole. Anything unexpected (a bad line,
/// bytes that are not UTF-8, an I/O error) makes the whole file be read again the plain way,
/// which finds and words the first problem exactly as `read_trajectories` does.
pub fn read_trajectory_facts<S: FactsSink>(path: &Path, new_sink: impl Fn() -> S + Sync) -> ApiResult<Vec<S>> {
    match read_facts_in_ranges(path, &new_sink) {
        Some(sinks) => Ok(sinks),
        None => read_facts_whole(path, &new_sink),
    }
}

/// The block-wise parallel read; None when the plain read must decide.
fn read_facts_in_ranges<S: FactsSink>(path: &Path, new_sink: &(impl Fn() -> S + Sync)) -> Option<Vec<S>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_TRAJECTORY_FILE_BYTES {
        return None;
    }
    let len = meta.len();
    let threads = reading_threads(usize::try_from(len).ok()?) as u64;
    let bounds: Vec<(u64, u64)> = (0..threads).map(|k| (len * k / threads, len * (k + 1) / threads)).collect();
    let results: Vec<Option<S>> = if bounds.len() == 1 {
        vec![read_range(path, 0, len, new_sink())]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> =
                bounds.iter().map(|&(start, end)| s.spawn(move || read_range(path, start, end, new_sink()))).collect();
            handles.into_iter().map(|h| h.join().ok().flatten()).collect()
        })
    };
    results.into_iter().collect()
}

/// Read the lines that start within `start..end` (a line belongs to the range holding its first
/// byte; the last one is read to its end even past `end`). None on anything unexpected.
fn read_range<S: FactsSink>(path: &Path, start: u64, end: u64, mut sink: S) -> Option<S> {
    use std::io::{Read, Seek, SeekFrom};
    // Tests use small blocks, so that lines span blocks.
    const BLOCK: usize = if cfg!(test) { 61 } else { 1 << 20 };
    let mut file = std::fs::File::open(path).ok()?;
    let mut buf: Vec<u8> = Vec::with_capacity(2 * BLOCK);
    // File offset of buf[0].
    let mut buf_at = start;
    // A line that began before `start` belongs to the previous range: skip to its end.
    let mut skipping = false;
    if start > 0 {
        let mut before = [0u8];
        file.seek(SeekFrom::Start(start - 1)).ok()?;
        file.read_exact(&mut before).ok()?;
        skipping = before[0] != b'\n';
    }
    loop {
        let filled = buf.len();
        buf.resize(filled + BLOCK, 0);
        let n = file.read(&mut buf[filled..]).ok()?;
        buf.truncate(filled + n);
        let at_end = n == 0;
        if skipping {
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    buf.drain(..=i);
                    buf_at += i as u64 + 1;
                    skipping = false;
                }
                None if at_end => return Some(sink),
                None => {
                    buf_at += buf.len() as u64;
                    buf.clear();
                    continue;
                }
            }
        }
        // Whole lines only, unless the file has ended.
        let whole = if at_end { buf.len() } else { buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) };
        if whole > 0 {
            let text = std::str::from_utf8(&buf[..whole]).ok()?;
            // Borrows this block's text, so it lives for one block.
            let mut facts = TrajectoryFacts::default();
            let mut line_at = buf_at;
            for line in text.split_inclusive('\n') {
                if line_at >= end {
                    return Some(sink);
                }
                // The plain read drops a byte-order mark at the start of the file.
                let line_text = if line_at == 0 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
                line_at += line.len() as u64;
                if line_text.trim().is_empty() {
                    continue;
                }
                if lean_read::read_line(line_text, &mut facts).is_ok() {
                    sink.add(&facts);
                } else {
                    let t = serde_json::from_str::<Trajectory>(line_text).ok()?;
                    sink.add(&TrajectoryFacts::of(&t));
                }
            }
            buf.drain(..whole);
            buf_at += whole as u64;
        }
        if at_end || buf_at >= end {
            return Some(sink);
        }
    }
}

/// Read the whole text, then its parts on parallel threads (the plain way: the lean reader is
/// backed by the full decoder, and errors carry their line).
fn read_facts_whole<S: FactsSink>(path: &Path, new_sink: &(impl Fn() -> S + Sync)) -> ApiResult<Vec<S>> {
    let text = read_text(path)?;
    let parts = split_lines(&text, reading_threads(text.len()));
    let results: Vec<Result<(S, usize), (usize, String)>> = if parts.len() == 1 {
        parts.iter().map(|part| read_part(part, new_sink())).collect()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = parts.iter().map(|part| s.spawn(move || read_part(part, new_sink()))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err((0, "a reading thread failed".into()))))
                .collect()
        })
    };
    let mut sinks = Vec::with_capacity(results.len());
    let mut lines_before = 0;
    for r in results {
        match r {
            Ok((sink, lines)) => {
                sinks.push(sink);
                lines_before += lines;
            }
            Err((line, msg)) => {
                return Err(ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!("{}:{}: {msg}", path.display(), lines_before + line),
                ));
            }
        }
    }
    Ok(sinks)
}

/// Threads for reading `bytes` of JSONL: one per core (at most 8), one for small files.
fn reading_threads(bytes: usize) -> usize {
    if bytes < (1 << 20) {
        return 1;
    }
    crate::util::parallel::worker_threads()
}

/// Cut `text` into about `parts` pieces, each ending just after a line break (or at the end).
fn split_lines(text: &str, parts: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(parts);
    let mut rest = text;
    for k in (1..parts).rev() {
        let target = rest.len() / (k + 1);
        let Some(cut) = rest.as_bytes()[target..].iter().position(|&b| b == b'\n').map(|i| target + i + 1) else {
            break;
        };
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    out.push(rest);
    out
}

/// Read one part: its sink and its number of lines, or the (1-based, within the part) number
/// and explanation of its first bad line.
fn read_part<S: FactsSink>(part: &str, mut sink: S) -> Result<(S, usize), (usize, String)> {
    let mut facts = TrajectoryFacts::default();
    let mut lines = 0;
    for (i, line) in part.lines().enumerate() {
        lines = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if lean_read::read_line(line, &mut facts).is_ok() {
            sink.add(&facts);
            continue;
        }
        // The lean reader was not sure: the full decoder decides, and explains a refusal.
        match serde_json::from_str::<Trajectory>(line) {
            Ok(t) => sink.add(&TrajectoryFacts::of(&t)),
            Err(_) => return Err((lines, explain(line))),
        }
    }
    Ok((sink, lines))
}

pub fn write_trajectories(path: &Path, items: &[Trajectory]) -> ApiResult<()> {
    let mut s = String::new();
    for t in items {
        s.push_str(&serde_json::to_string(t).map_err(|e| ApiError::internal(e.to_string()))?);
        s.push('\n');
    }
    write_atomic(path, s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::synthetic_benchmark;

    /// Collects the facts it is given, as owned strings.
    #[derive(Default)]
    struct Collect(Vec<(String, String, u64, Option<crate::case::Verdict>, u64)>);

    impl FactsSink for Collect {
        fn add(&mut self, f: &TrajectoryFacts<'_>) {
            self.0.push((f.model.to_string(), f.case_id.to_string(), f.repeat, f.verdict, f.asks));
        }
    }

    /// The synthetic trajectories as JSONL lines (about 2.5 MB: several reading threads).
    fn lines() -> Vec<String> {
        let (_, ts) = synthetic_benchmark(1500, 2, 3);
        ts.iter().map(|t| serde_json::to_string(t).unwrap()).collect()
    }

    fn both(dir: &Path, text: &str) -> (ApiResult<Vec<Trajectory>>, ApiResult<Vec<Collect>>) {
        let path = dir.join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        (read_trajectories(&path), read_trajectory_facts(&path, Collect::default))
    }

    #[test]
    fn facts_follow_the_file_in_order_across_parts() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = lines().join("\r\n");
        text.insert_str(0, "\n  \n");
        text.push('\n');
        let (full, lean) = both(dir.path(), &text);
        let full = full.unwrap();
        let lean: Vec<_> = lean.unwrap().into_iter().flat_map(|c| c.0).collect();
        assert_eq!(lean.len(), full.len());
        for (l, t) in lean.iter().zip(&full) {
            assert_eq!(
                l,
                &(t.model.clone(), t.case_id.clone(), t.repeat_index(), t.predicted_verdict(), t.ask_count() as u64)
            );
        }
    }

    #[test]
    fn a_bad_line_gives_the_same_error_as_the_full_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = lines();
        let bad_lines = [
            "{\"run_id\": 1}".to_string(),
            "not json".to_string(),
            good[0].replace("\"turns\":[", "\"turns\":[{\"role\":\"eval\",\"raw\":5},"),
            good[0].replace("\"usage\":{", "\"usage\":null,\"x\":{"),
        ];
        for bad in &bad_lines {
            for at in [0, 7, good.len() / 2, good.len() - 1] {
                let mut ls = good.clone();
                ls.insert(at, bad.clone());
                let (full, lean) = both(dir.path(), &ls.join("\n"));
                let (full, lean) = (full.unwrap_err(), lean.err().expect("an error"));
                assert_eq!(lean.to_string(), full.to_string());
                assert!(full.to_string().contains(&format!("t.jsonl:{}:", at + 1)), "{full}");
            }
        }
        let (full, lean) = both(dir.path(), "{\"a\": \"\u{e9}\"}\n");
        assert_eq!(lean.err().expect("an error").to_string(), full.unwrap_err().to_string());
        let path = dir.path().join("latin1.jsonl");
        std::fs::write(&path, b"\n{\"a\": \"\xe9\"}\n").unwrap();
        assert_eq!(
            read_trajectory_facts(&path, Collect::default).err().expect("an error").to_string(),
            read_trajectories(&path).unwrap_err().to_string()
        );
        let missing = dir.path().join("missing.jsonl");
        assert_eq!(
            read_trajectory_facts(&missing, Collect::default).err().expect("an error").to_string(),
            read_trajectories(&missing).unwrap_err().to_string()
        );
    }

    #[test]
    fn ranges_cut_anywhere_read_every_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let ls = lines();
        let text = format!("\u{feff}{}\r\n\n  \n{}\n{}", ls[0], ls[1], ls[2]);
        std::fs::write(&path, &text).unwrap();
        let expected: Vec<_> =
            read_facts_whole(&path, &Collect::default).unwrap().into_iter().flat_map(|c| c.0).collect();
        assert_eq!(expected.len(), 3);
        let len = text.len() as u64;
        for cut in 0..=len {
            for cut2 in [cut, (cut + 7).min(len), len] {
                let got: Vec<_> = [(0, cut), (cut, cut2), (cut2, len)]
                    .into_iter()
                    .flat_map(|(a, b)| read_range(&path, a, b, Collect::default()).expect("read").0)
                    .collect();
                assert_eq!(got, expected, "cut at {cut} and {cut2}");
            }
        }
    }

    #[test]
    fn parts_end_at_line_breaks() {
        let text = "a\nbb\nccc\ndddd";
        for n in 1..6 {
            let parts = split_lines(text, n);
            assert_eq!(parts.concat(), text);
            assert!(parts.iter().rev().skip(1).all(|p| p.ends_with('\n')));
        }
        assert_eq!(split_lines("", 2).concat(), "");
    }
}
