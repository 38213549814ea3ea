//! The seed papers' algorithms, one module per paper, written against plain data so the policy
//! layers of the core (and their tests) can call them. See docs/design/yarn-mapping.md for the YARN mapping.

pub mod fresh;
pub mod joss;
pub mod matchmaking;
pub mod mrosa;
pub mod td;
