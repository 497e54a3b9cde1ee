//! A handle to a value made once and kept for the process (an alphabet, a registered ruleset):
//! `Copy`, and compared and hashed by address.

use std::hash::{Hash, Hasher};

/// A leaked `&'static T`, compared and hashed by address: a value is interned once (leaked, so
/// that it lives for the process and a handle to it can be `Copy`), so two handles are the same
/// value exactly when they point to the same place, and comparing them is comparing two
/// pointers, never the values (a whole alphabet's spellings, a ruleset's board).
pub(crate) struct Interned<T: 'static>(&'static T);

impl<T> Interned<T> {
    /// Leak `value` for the process; the handle is the only way to it.
    pub(crate) fn leak(value: T) -> Interned<T> {
        Interned(Box::leak(Box::new(value)))
    }

    /// The value, for as long as the process lives.
    #[inline]
    pub(crate) fn get(self) -> &'static T {
        self.0
    }
}

impl<T> Clone for Interned<T> {
    #[inline]
    fn clone(&self) -> Interned<T> {
        *self
    }
}
impl<T> Copy for Interned<T> {}

impl<T> PartialEq for Interned<T> {
    #[inline]
    fn eq(&self, other: &Interned<T>) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl<T> Eq for Interned<T> {}
impl<T> Hash for Interned<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.0 as *const T).hash(state)
    }
}
