//! The paper's tables as CSV, Markdown and LaTeX.
