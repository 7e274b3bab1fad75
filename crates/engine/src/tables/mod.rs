//! The paper's tables as CSV, Markdown and LaTeX.
//!
//! [`Table`] is a generic shape (columns, optional LaTeX column groups, typed cells) so later code
//! can add tables of its own (generation statistics, review agreement) and get all three renderings
//! for free. The builders in [`paper`] turn a [`MetricsReport`](crate::metrics::MetricsReport) into
//! the paper's tables. Writing them to files (with the charts) is `export`'s job.

mod model;
pub mod paper;
mod render;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;

pub use crate::metrics::per_clause::{clause_rows, ClauseRow};
pub use crate::util::format::fmt_thousands;
pub use model::{fmt_fixed, Align, Best, Cell, Column, ColumnGroup, Table};
pub use paper::{
    all_tables, all_tables_noted, ask_count_distribution, m3_by_case_type, m4_by_case_type, per_clause_m1,
    prf_breakdown, table1_overall, table2_m1_by_case_type, table3_behavior, uncertain_routing,
};
