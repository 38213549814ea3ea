//! placeholder until the bridge lands
