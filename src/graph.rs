//! TODO: graph
