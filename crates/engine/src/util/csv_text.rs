//! Writing CSV text with the `csv` crate (RFC 4180 quoting, `\n` line ends), shared by every export
//! that produces CSV so they all quote the same way, and the guard that keeps free text from being
//! read as a spreadsheet formula.

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

/// CSV text of `records` (the first is usually the header). Fields are quoted only when they hold
/// a comma, a quote or a line break; records may have different lengths.
pub fn csv_string<R, F>(records: impl IntoIterator<Item = R>) -> Result<String, CsvWriteError>
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    for (i, record) in records.into_iter().enumerate() {
        w.write_record(record).map_err(|source| CsvWriteError::Record { record: i, source })?;
    }
    let bytes = w.into_inner().map_err(|e| CsvWriteError::Flush(e.error().to_string()))?;
    Ok(String::from_utf8(bytes)?)
}

/// First characters that make a spreadsheet treat a cell as a formula (or, for tab and carriage
/// return, that some spreadsheets strip before looking for one).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A free-text cell made safe to open in a spreadsheet: text starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return gets a leading single quote, so it shows as text instead of running as a
/// formula. Other text is returned as it is. Use it on text columns only, never on numeric ones.
pub fn formula_safe(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::{csv_string, formula_safe};

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
