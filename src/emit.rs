//! TODO: emit
