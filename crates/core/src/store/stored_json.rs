//! JSON kept in text columns. A value that no longer parses is an error that says which table,
//! column and row hold it, never a silent default.

use serde::de::DeserializeOwned;

/// A JSON column: where it is and how to name it in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredColumn {
    pub table: &'static str,
    pub column: &'static str,
    /// What the column holds, in words ("configuration").
    pub what: &'static str,
    /// What one row is ("run").
    pub row_kind: &'static str,
}

/// A stored JSON value that cannot be read back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "The stored {} of {} {row} (table {}, column {}) {problem}: {message}. Restore the database from a backup, or delete that {}.",
    .column.what, .column.row_kind, .column.table, .column.column, .column.row_kind
)]
pub struct CorruptJson {
    pub column: &'static StoredColumn,
    pub row: String,
    /// "is not valid JSON" or "does not have the expected shape".
    pub problem: &'static str,
    pub message: String,
}

impl StoredColumn {
    /// Parse the value stored in row `row`.
    pub fn parse<T: DeserializeOwned>(&'static self, text: &str, row: &str) -> Result<T, CorruptJson> {
        serde_json::from_str(text).map_err(|e| {
            let problem = match e.classify() {
                serde_json::error::Category::Data => "does not have the expected shape",
                _ => "is not valid JSON",
            };
            CorruptJson { column: self, row: row.to_string(), problem, message: e.to_string() }
        })
    }

    /// [`StoredColumn::parse`] inside a rusqlite row mapper: the error travels as a conversion
    /// failure of column `index` and becomes the same message when it reaches the API.
    pub fn parse_in_row<T: DeserializeOwned>(
        &'static self,
        text: &str,
        row: &str,
        index: usize,
    ) -> rusqlite::Result<T> {
        self.parse(text, row)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e)))
    }

    /// Like [`StoredColumn::parse_in_row`] for a column that may be NULL.
    pub fn parse_opt_in_row<T: DeserializeOwned>(
        &'static self,
        text: Option<String>,
        row: &str,
        index: usize,
    ) -> rusqlite::Result<Option<T>> {
        text.map(|t| self.parse_in_row(&t, row, index)).transpose()
    }
}

/// The corrupt-JSON error carried inside a rusqlite error, if that is what it is.
pub fn corrupt_json_in(e: &rusqlite::Error) -> Option<&CorruptJson> {
    match e {
        rusqlite::Error::FromSqlConversionFailure(_, _, inner) => inner.downcast_ref::<CorruptJson>(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COL: StoredColumn =
        StoredColumn { table: "runs", column: "config_json", what: "configuration", row_kind: "run" };

    #[test]
    fn a_broken_value_names_table_column_and_row() {
        let e = COL.parse::<serde_json::Value>("{not json", "eval-1").unwrap_err();
        let m = e.to_string();
        assert!(
            m.starts_with("The stored configuration of run eval-1 (table runs, column config_json) is not valid JSON"),
            "{m}"
        );
        let shape = COL.parse::<Vec<String>>("{\"a\": 1}", "eval-2").unwrap_err();
        assert_eq!(shape.problem, "does not have the expected shape");
        let in_row = COL.parse_in_row::<serde_json::Value>("[", "eval-3", 4).unwrap_err();
        assert_eq!(corrupt_json_in(&in_row).map(|c| c.row.as_str()), Some("eval-3"));
    }
}
