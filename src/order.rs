//! TODO: order
