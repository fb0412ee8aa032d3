//! The run: the one way through for every input (frame, pass 1, pass 2, conclusion).

pub(crate) mod conclude;
pub(crate) mod frame;
pub(crate) mod pass1;
pub(crate) mod pass2;
pub(crate) mod pipeline;
