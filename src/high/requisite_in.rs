//! TODO: requisite_in
