//! Charts of the paper's figures, rendered with plotters to SVG (shown in the app) and PNG (export).
