//! TODO: extend
