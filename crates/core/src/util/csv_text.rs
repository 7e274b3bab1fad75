//! Writing CSV text with the `csv` crate (RFC 4180 quoting, `\n` line ends), shared by every export
//! that produces CSV so they all quote the same way and all get the guard that keeps a cell from
//! being read as a spreadsheet formula. Every CSV the engine writes goes through [`csv_string`];
//! callers never have to remember the guard.

use std::borrow::Cow;

use crate::error::ApiError;

/// Why CSV text could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum CsvWriteError {
    /// The writer rejected a record (`record` counts from 0, the header being record 0).
    #[error("could not write CSV record {record}: {source}")]
    Record { record: usize, source: csv::Error },
    /// The buffered text could not be flushed.
    #[error("could not finish the CSV text: {0}")]
    Flush(String),
    /// The written bytes were not UTF-8 (cannot happen for `&str` fields).
    #[error("the CSV text is not valid UTF-8: {0}")]
    NotUtf8(#[from] std::string::FromUtf8Error),
}

impl From<CsvWriteError> for ApiError {
    fn from(e: CsvWriteError) -> Self {
        ApiError::internal(e.to_string())
    }
}

/// CSV text of `records` (the first is usually the header). Every field, header included, goes
/// through the formula guard ([`formula_safe_bytes`]): a field that would start a spreadsheet
/// formula gets a leading single quote, while plain numbers such as `-0.5` stay as they are. Fields
/// are quoted only when they hold a comma, a quote or a line break; records may have different
/// lengths.
pub fn csv_string<R, F>(records: impl IntoIterator<Item = R>) -> Result<String, CsvWriteError>
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    for (i, record) in records.into_iter().enumerate() {
        let guarded: Vec<Vec<u8>> = record.into_iter().map(|f| formula_safe_bytes(f.as_ref()).into_owned()).collect();
        w.write_record(&guarded).map_err(|source| CsvWriteError::Record { record: i, source })?;
    }
    let bytes = w.into_inner().map_err(|e| CsvWriteError::Flush(e.error().to_string()))?;
    Ok(String::from_utf8(bytes)?)
}

/// First characters that make a spreadsheet treat a cell as a formula (or, for tab and carriage
/// return, that some spreadsheets strip before looking for one).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A cell made safe to open in a spreadsheet: text starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return gets a leading single quote, so it shows as text instead of running as a
/// formula, unless it is a plain number (`-0.5`, `+3`, `1e-4`), which a spreadsheet reads as that
/// number. Other text is returned as it is. [`csv_string`] applies it to every field.
pub fn formula_safe(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) && !is_plain_number(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// [`formula_safe`] for the raw bytes a CSV field is written from (the guard only looks at the
/// first character, which is ASCII whenever it matters).
pub fn formula_safe_bytes(field: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(field) {
        Ok(text) => match formula_safe(text) {
            Cow::Borrowed(_) => Cow::Borrowed(field),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        Err(_) if field.first().is_some_and(|b| FORMULA_STARTS.iter().any(|c| *c as u32 == u32::from(*b))) => {
            let mut out = Vec::with_capacity(field.len() + 1);
            out.push(b'\'');
            out.extend_from_slice(field);
            Cow::Owned(out)
        }
        Err(_) => Cow::Borrowed(field),
    }
}

/// An optional sign, digits with an optional decimal part (or a decimal part alone), and an optional
/// exponent: the shape of every number the exports write. Nothing else, so `-2+3`, `-inf` or
/// `-1 is wrong` are not numbers here.
fn is_plain_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::{csv_string, formula_safe, formula_safe_bytes};

    #[test]
    fn formula_starts_get_a_quote_and_other_text_stays() {
        for (raw, safe) in [
            ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
            ("+1+2", "'+1+2"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(formula_safe(raw), safe);
        }
        for plain in ["", "fine, really", "a=b", "'quoted", "4", "x-1"] {
            assert_eq!(formula_safe(plain), plain);
        }
    }

    #[test]
    fn plain_numbers_stay_numbers_and_look_alikes_are_guarded() {
        for n in ["-0.5", "+3", "-12", "1e-4", "-.5", "-2.", "-1E+3"] {
            assert_eq!(formula_safe(n), n, "{n}");
        }
        for t in ["-", "+", "-.", "-e5", "-1e", "-inf", "-NaN", "-2+3", "-1 is wrong", "+1+2", "-1,5", " -1"] {
            let expected = if t.starts_with(['-', '+']) { format!("'{t}") } else { t.to_string() };
            assert_eq!(formula_safe(t), expected, "{t}");
        }
    }

    #[test]
    fn every_field_written_is_guarded_header_included() {
        let text = csv_string([
            vec!["=HYPERLINK(\"http://x\",\"y\") verdict", "n"],
            vec!["+1+2", "-0.5"],
            vec!["-2+3", "@SUM(A1)"],
            vec!["\t=1", "\r=1"],
        ])
        .unwrap();
        let mut rd = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
        let cells: Vec<String> =
            rd.records().flat_map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>()).collect();
        assert_eq!(
            cells,
            ["'=HYPERLINK(\"http://x\",\"y\") verdict", "n", "'+1+2", "-0.5", "'-2+3", "'@SUM(A1)", "'\t=1", "'\r=1"]
        );
        // Guarding twice changes nothing.
        assert_eq!(csv_string([["'=1"]]).unwrap(), "'=1\n");
        // Bytes that are not UTF-8 are guarded by their first byte too.
        assert_eq!(formula_safe_bytes(b"=\xff").as_ref(), b"'=\xff");
        assert_eq!(formula_safe_bytes(b"a\xff").as_ref(), b"a\xff");
    }

    #[test]
    fn quotes_only_what_needs_it() {
        let text = csv_string([vec!["Model", "Note"], vec!["A, \"quoted\"", "two\nlines"], vec!["plain", ""]]).unwrap();
        assert_eq!(text, "Model,Note\n\"A, \"\"quoted\"\"\",\"two\nlines\"\nplain,\n");
    }

    #[test]
    fn round_trips_through_a_reader() {
        let rows = [vec!["a|b", " edge ", "x\r\ny", "ü, é"], vec!["1", "2", "3", "4"]];
        let text = csv_string(rows.iter().map(|r| r.iter())).unwrap();
        let mut rd = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
        let back: Vec<Vec<String>> = rd.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
        assert_eq!(back, rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>());
    }

    #[test]
    fn records_may_differ_in_length_and_none_is_empty_text() {
        assert_eq!(csv_string([vec!["a", "b"], vec!["c"]]).unwrap(), "a,b\nc\n");
        assert_eq!(csv_string(Vec::<Vec<&str>>::new()).unwrap(), "");
    }
}
