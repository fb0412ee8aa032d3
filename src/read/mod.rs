//! Reading: what the text of an input says, item by item: the chunks it is cut into, plain streams, the catalog's reference sites, what producers make, the `__data` and ignore-keys conventions.

pub mod chunks;
pub mod content;
pub mod data_refs;
pub mod env_shift;
pub mod ignore_keys;
pub mod input_error;
pub mod produced;
pub mod references;
pub mod resource_list;
pub mod stream;
